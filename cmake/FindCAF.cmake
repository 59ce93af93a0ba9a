# FindCAF: locates the C++ Actor Framework 0.17 as Debian installs it (libcaf-dev ships no CMake
# config). Components: core, io, openssl. Defines CAF_FOUND, CAF_VERSION and imported targets
# CAF::core, CAF::io, CAF::openssl for the components found.
find_path(CAF_INCLUDE_DIR NAMES caf/config.hpp)

if(CAF_INCLUDE_DIR)
  file(STRINGS "${CAF_INCLUDE_DIR}/caf/config.hpp" _caf_version_line
       REGEX "^#define CAF_VERSION [0-9]+$")
  string(REGEX REPLACE "^#define CAF_VERSION ([0-9]+)$" "\\1" _caf_version_number
                       "${_caf_version_line}")
  math(EXPR _caf_major "${_caf_version_number} / 10000")
  math(EXPR _caf_minor "(${_caf_version_number} / 100) % 100")
  math(EXPR _caf_patch "${_caf_version_number} % 100")
  set(CAF_VERSION "${_caf_major}.${_caf_minor}.${_caf_patch}")
endif()

set(_caf_required_vars CAF_INCLUDE_DIR)
foreach(_component IN LISTS CAF_FIND_COMPONENTS)
  find_library(CAF_${_component}_LIBRARY NAMES caf_${_component})
  if(CAF_${_component}_LIBRARY)
    set(CAF_${_component}_FOUND TRUE)
    if(NOT TARGET CAF::${_component})
      add_library(CAF::${_component} UNKNOWN IMPORTED)
      set_target_properties(CAF::${_component} PROPERTIES
        IMPORTED_LOCATION "${CAF_${_component}_LIBRARY}"
        INTERFACE_INCLUDE_DIRECTORIES "${CAF_INCLUDE_DIR}")
    endif()
  endif()
endforeach()

# caf_io and caf_openssl build on caf_core; openssl also needs OpenSSL itself.
if(TARGET CAF::io AND TARGET CAF::core)
  set_property(TARGET CAF::io APPEND PROPERTY INTERFACE_LINK_LIBRARIES CAF::core)
endif()
if(TARGET CAF::openssl)
  find_package(OpenSSL REQUIRED)
  set_property(TARGET CAF::openssl APPEND PROPERTY INTERFACE_LINK_LIBRARIES
               CAF::io OpenSSL::SSL OpenSSL::Crypto)
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(CAF
  REQUIRED_VARS ${_caf_required_vars}
  VERSION_VAR CAF_VERSION
  HANDLE_COMPONENTS)
mark_as_advanced(CAF_INCLUDE_DIR CAF_core_LIBRARY CAF_io_LIBRARY CAF_openssl_LIBRARY)

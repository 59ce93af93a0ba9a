// The single Boost.Test entry point; each unit's tests live in their own *_test.cpp file.
#define BOOST_TEST_MODULE unisched
#include <boost/test/unit_test.hpp>

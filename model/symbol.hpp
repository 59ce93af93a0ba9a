// Symbol: a string the process holds once, for the few names that every node repeats (device
// models). A copy is one pointer and allocates nothing; equal symbols share the pointer.
// Symbols are never freed: only names actually seen are held, and they are few.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>

namespace unisched::model {

class Symbol {
 public:
  Symbol();                         ///< the empty string
  Symbol(const std::string& text);  // NOLINT: implicit, a symbol stands for its text
  Symbol(const char* text);         // NOLINT
  Symbol(std::string_view text);    // NOLINT
  Symbol& operator=(const std::string& text) { return *this = Symbol(text); }
  Symbol& operator=(const char* text) { return *this = Symbol(text); }

  const std::string& str() const { return *text_; }
  operator const std::string&() const { return *text_; }  // NOLINT
  const char* c_str() const { return text_->c_str(); }
  bool empty() const { return text_->empty(); }
  size_t size() const { return text_->size(); }

  bool operator==(const Symbol& other) const { return text_ == other.text_; }
  bool operator!=(const Symbol& other) const { return text_ != other.text_; }
  bool operator<(const Symbol& other) const {
    return text_ != other.text_ && *text_ < *other.text_;
  }
  friend bool operator==(const Symbol& a, const std::string& b) { return a.str() == b; }
  friend bool operator==(const std::string& a, const Symbol& b) { return a == b.str(); }
  friend bool operator!=(const Symbol& a, const std::string& b) { return a.str() != b; }
  friend bool operator!=(const std::string& a, const Symbol& b) { return a != b.str(); }
  friend bool operator==(const Symbol& a, const char* b) { return a.str() == b; }
  friend bool operator!=(const Symbol& a, const char* b) { return a.str() != b; }

 private:
  const std::string* text_;
};

std::ostream& operator<<(std::ostream& out, const Symbol& symbol);

}  // namespace unisched::model

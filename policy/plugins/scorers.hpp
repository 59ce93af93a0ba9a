// The built-in node scorers.
#pragma once

#include "policy/framework.hpp"

namespace unisched::policy::plugins {

std::shared_ptr<const NodeScorer> make_least_allocated();
std::shared_ptr<const NodeScorer> make_most_allocated();
std::shared_ptr<const NodeScorer> make_gpu_packing();
std::shared_ptr<const NodeScorer> make_locality();
std::shared_ptr<const NodeScorer> make_best_fit();
std::shared_ptr<const NodeScorer> make_random();
std::shared_ptr<const NodeScorer> make_dot_product();
std::shared_ptr<const NodeScorer> make_share_packing();
std::shared_ptr<const NodeScorer> make_gpu_in_use();

/// A share's device drawn at random among those that fit (the paper's Random runs so).
std::shared_ptr<const ShareChooser> make_random_device();

}  // namespace unisched::policy::plugins

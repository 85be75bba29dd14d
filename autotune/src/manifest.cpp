// Tuning targets read from a JSON manifest.
#include <fstream>
#include <tuple>
#include <utility>
#include <sstream>

#include <nlohmann/json.hpp>

#include "alloy/autotune/registry.hpp"
#include "alloy/error.hpp"
#include "alloy/kernel_args.hpp"
#include "shared_reference.hpp"

namespace alloy::autotune {
namespace {

using nlohmann::json;

// Errors name the file and the place in it.
struct Reader {
  std::filesystem::path file;

  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw InvalidArgument("manifest " + file.string() + ": " + where + ": " + what);
  }
  const json& at(const json& object, const char* key, const std::string& where) const {
    if (!object.is_object()) fail(where, "is not an object");
    const auto found = object.find(key);
    if (found == object.end()) fail(where, std::string("has no \"") + key + "\"");
    return *found;
  }
  std::string text(const json& object, const char* key, const std::string& where) const {
    const json& value = at(object, key, where);
    if (!value.is_string()) fail(where, std::string("\"") + key + "\" is not a string");
    return value.get<std::string>();
  }
  std::int64_t integer(const json& value, const std::string& where) const {
    if (!value.is_number_integer()) fail(where, "is not an integer");
    return value.get<std::int64_t>();
  }

  // "4*MWG*KWG*$0": factors are integers, parameter names, or $d for problem
  // dimension d; an integer alone is a constant.
  ParameterProduct product(const json& value, const std::string& where) const {
    ParameterProduct result;
    if (value.is_number_integer()) {
      result.factor = value.get<std::int64_t>();
      return result;
    }
    if (!value.is_string()) fail(where, "is not a product such as \"4*MWG*$0\"");
    std::stringstream terms(value.get<std::string>());
    std::string term;
    while (std::getline(terms, term, '*')) {
      term.erase(0, term.find_first_not_of(' '));
      term.erase(term.find_last_not_of(' ') + 1);
      if (term.empty()) fail(where, "has an empty factor");
      if (term[0] == '$') {
        if (term.size() != 2 || term[1] < '0' || term[1] > '2') fail(where, "problem dimensions are $0, $1, $2");
        result.problem_dimensions.push_back(static_cast<unsigned>(term[1] - '0'));
      } else if (term.find_first_not_of("0123456789") == std::string::npos) {
        if (term.size() > 12) fail(where, "has a constant factor above 10^12");
        result.factor *= std::stoll(term);
      } else {
        result.parameters.push_back(term);
      }
    }
    return result;
  }

  // "$0*$1/4": a product over a product, for buffer sizes.
  std::pair<ParameterProduct, ParameterProduct> quotient(const json& value, const std::string& where) const {
    if (!value.is_string()) return {product(value, where), ParameterProduct{}};
    const std::string text = value.get<std::string>();
    const std::size_t slash = text.find('/');
    if (slash == std::string::npos) return {product(value, where), ParameterProduct{}};
    if (text.find('/', slash + 1) != std::string::npos) fail(where, "has more than one '/'");
    const ParameterProduct divisor = product(json(text.substr(slash + 1)), where + " divisor");
    if (!divisor.parameters.empty()) fail(where, "divides by a parameter; buffer sizes follow the problem only");
    if (divisor.factor <= 0) fail(where, "divides by zero or less");
    return {product(json(text.substr(0, slash)), where), divisor};
  }

  HarnessBuffer::Fill fill(const json& buffer, const std::string& where) const {
    static const std::pair<const char*, HarnessBuffer::Fill> fills[] = {
        {"random", HarnessBuffer::Fill::random}, {"zeros", HarnessBuffer::Fill::zeros},
        {"bits", HarnessBuffer::Fill::bits},     {"normal", HarnessBuffer::Fill::normal},
        {"skewed", HarnessBuffer::Fill::skewed}, {"sorted", HarnessBuffer::Fill::sorted},
        {"constant", HarnessBuffer::Fill::constant}, {"file", HarnessBuffer::Fill::file}};
    const std::string name = buffer.value("fill", "random");
    for (const auto& [known, kind] : fills) {
      if (name == known) return kind;
    }
    fail(where, "fill \"" + name + "\"; use random, zeros, bits, normal, skewed, sorted, constant or file");
  }

  TuningParameter parameter(const json& value, const std::string& where) const {
    TuningParameter result;
    result.name = text(value, "name", where);
    const json& values = at(value, "values", where);
    if (!values.is_array() || values.empty()) fail(where, "\"values\" is not a non-empty array");
    for (const json& v : values) result.values.push_back(integer(v, where + " value"));
    result.default_value = integer(at(value, "default", where), where + " default");
    if (value.contains("value_names")) {
      for (const json& name : value["value_names"]) {
        if (!name.is_string()) fail(where, "a value name is not a string");
        result.value_names.push_back(name.get<std::string>());
      }
    }
    return result;
  }

  TuningConstraint constraint(const json& value, const std::string& where) const {
    const std::string kind = text(value, "kind", where);
    TuningConstraint result;
    if (kind == "divides") result.kind = TuningConstraint::Kind::divides;
    else if (kind == "at_most") result.kind = TuningConstraint::Kind::at_most;
    else if (kind == "equal") result.kind = TuningConstraint::Kind::equal;
    else fail(where, "\"kind\" is \"" + kind + "\"; use divides, at_most or equal");
    result.left = product(at(value, "left", where), where + " left");
    result.right = product(at(value, "right", where), where + " right");
    return result;
  }

  HarnessArgument argument(const json& value, const std::string& where) const {
    if (value.contains("buffer")) return HarnessArgument::buffer(std::size_t(integer(value["buffer"], where)));
    if (value.contains("problem_dimension")) {
      const std::string type = value.value("type", "int");
      const std::optional<ScalarType> scalar = scalar_type_from_string(type);
      if (!scalar || (*scalar != ScalarType::i32 && *scalar != ScalarType::u32 && *scalar != ScalarType::i64 &&
                      *scalar != ScalarType::u64)) {
        fail(where, "a problem dimension's \"type\" is \"" + type + "\"; use int, uint, long or ulong");
      }
      return HarnessArgument::dimension(std::size_t(integer(value["problem_dimension"], where)), *scalar);
    }
    if (value.contains("int")) return HarnessArgument::int_value(int(integer(value["int"], where)));
    if (value.contains("float") && value["float"].is_number()) {
      return HarnessArgument::float_value(value["float"].get<float>());
    }
    fail(where, "is none of {\"buffer\": i}, {\"problem_dimension\": d}, {\"int\": v}, {\"float\": v}");
  }

  std::vector<LaunchDimensionRule> launch(const json& rules, const std::string& where) const {
    if (!rules.is_array()) fail(where, "is not an array of launch rules");
    std::vector<LaunchDimensionRule> result;
    for (const json& rule : rules) {
      LaunchDimensionRule dimension;
      dimension.problem_dimension = unsigned(integer(at(rule, "problem_dimension", where), where));
      dimension.multiply = product(rule.value("multiply", json(1)), where + " multiply");
      dimension.divide = product(rule.value("divide", json(1)), where + " divide");
      dimension.local = product(at(rule, "local", where), where + " local");
      result.push_back(dimension);
    }
    return result;
  }

  // {"parameter": "LAYOUT", "row_length": 4, "orders": {"aos": "rows",
  // "soa": "columns", "2": "blocks:8"}}: keys are the parameter's values or
  // their names.
  BufferLayout layout(const json& value, const TunableKernel& kernel, const std::string& where) const {
    BufferLayout result;
    result.parameter = text(value, "parameter", where);
    const std::optional<std::size_t> index = kernel.parameter_index(result.parameter);
    if (!index) fail(where, "\"parameter\" '" + result.parameter + "' is no parameter of the kernel");
    const TuningParameter& parameter = kernel.parameters[*index];
    result.row_length = product(at(value, "row_length", where), where + " row_length");
    const json& orders = at(value, "orders", where);
    if (!orders.is_object()) fail(where, "\"orders\" is not an object such as {\"0\": \"rows\", \"1\": \"columns\"}");
    for (const auto& [key, order_text] : orders.items()) {
      std::optional<std::int64_t> level;
      for (std::size_t v = 0; v < parameter.values.size(); ++v) {
        const bool named = v < parameter.value_names.size() && parameter.value_names[v] == key;
        if (named || std::to_string(parameter.values[v]) == key) level = parameter.values[v];
      }
      if (!level) fail(where, "order for '" + key + "', which is no value of " + parameter.name);
      const std::optional<ElementOrder> order =
          order_text.is_string() ? ElementOrder::parse(order_text.get<std::string>()) : std::nullopt;
      if (!order) fail(where, "the order for '" + key + "' is not rows, columns or blocks:K");
      result.orders[*level] = *order;
    }
    for (const std::int64_t v : parameter.values) {
      if (result.orders.count(v) == 0) fail(where, "has no order for " + parameter.name + "=" + std::to_string(v));
    }
    return result;
  }

  // {"kernel": "finish_sums", "arguments": [...], "launch": [...]}
  HarnessPass pass(const json& value, const std::string& where) const {
    HarnessPass result;
    result.kernel_name = text(value, "kernel", where);
    for (const json& a : at(value, "arguments", where)) result.arguments.push_back(argument(a, where + " argument"));
    result.launch = launch(at(value, "launch", where), where + " launch");
    return result;
  }

  // Each buffer argument's type must be the one its kernel parameter points
  // to: bytes of a uint* read as floats compare wrong values as right ones.
  // A kernel the source does not declare plainly, or a parameter declared
  // through a macro, is left to the runtime's checks at launch.
  void check_buffer_types(const std::string& where, const std::string& source, const std::string& kernel_name,
                          const std::vector<HarnessArgument>& arguments, const std::vector<HarnessBuffer>& buffers,
                          const std::vector<bool>& typed) const {
    const std::optional<KernelSignature> signature = find_kernel_signature(source, kernel_name);
    if (!signature) return;
    for (std::size_t i = 0; i < arguments.size() && i < signature->parameters.size(); ++i) {
      const HarnessArgument& argument = arguments[i];
      if (argument.kind != HarnessArgument::Kind::buffer || argument.index >= buffers.size()) continue;
      const KernelParameter& parameter = signature->parameters[i];
      if (parameter.kind == KernelParameter::Kind::scalar) continue;  // the launch says so
      const std::optional<ScalarType> pointee = pointee_scalar_type(parameter.declared_type);
      const HarnessBuffer& buffer = buffers[argument.index];
      if (!pointee || *pointee == buffer.type) continue;
      const std::string held(to_string(buffer.type));
      const std::string wanted(to_string(*pointee));
      fail(where, "buffer '" + buffer.name + "' holds " + held +
                      (typed[argument.index] ? "" : " (the default: it gives no \"type\")") + ", but argument " +
                      std::to_string(i) + " of kernel '" + kernel_name + "' is '" + parameter.declared_type + " " +
                      parameter.name + "', which points to " + wanted + "; give the buffer \"type\": \"" + wanted +
                      "\"");
    }
  }

  Extent problem(const json& value, const std::string& where) const {
    if (!value.is_array() || value.empty() || value.size() > 3) fail(where, "is not 1 to 3 sizes");
    std::array<std::size_t, 3> size{1, 1, 1};
    for (std::size_t d = 0; d < value.size(); ++d) {
      const std::int64_t s = integer(value[d], where);
      if (s <= 0) fail(where, "has a size of zero or less");
      size[d] = std::size_t(s);
    }
    Extent extent(size[0], size[1], size[2]);
    extent.dimensions = unsigned(value.size());
    return extent;
  }

  // "compare": "elements" (default), "sum" or "sorted"; tolerances for float
  // outputs from "relative_tolerance" and "absolute_tolerance", else the
  // harness's "tolerance" for both. Integer outputs always compare exactly.
  OutputCheck check(const json& buffer, const json& harness, const std::string& where) const {
    OutputCheck result;
    const std::string kind = buffer.value("compare", "elements");
    if (kind == "elements") result.kind = OutputCheck::Kind::elements;
    else if (kind == "sum") result.kind = OutputCheck::Kind::sum;
    else if (kind == "sorted") result.kind = OutputCheck::Kind::sorted;
    else fail(where, "\"compare\" is \"" + kind + "\"; use elements, sum or sorted");
    auto tolerance = [&](const json& object, const char* key, double fallback) {
      if (!object.contains(key)) return fallback;
      const json& value = object[key];
      if (!value.is_number() || !(value.get<double>() >= 0)) fail(where, std::string("\"") + key + "\" is not a number >= 0");
      return value.get<double>();
    };
    const double shared = tolerance(harness, "tolerance", result.relative);
    result.relative = tolerance(buffer, "relative_tolerance", shared);
    result.absolute = tolerance(buffer, "absolute_tolerance", shared);
    return result;
  }

  TuningTarget target(const json& value, const std::string& where) const {
    TuningTarget result;
    TunableKernel& kernel = result.kernel;
    kernel.name = text(value, "name", where);
    const std::string item = where + " (" + kernel.name + ")";
    const std::filesystem::path source_file = file.parent_path() / text(value, "source_file", item);
    std::ifstream in(source_file, std::ios::binary);
    if (!in) fail(item, "cannot read source file " + source_file.string());
    std::stringstream source;
    source << in.rdbuf();
    kernel.source = {source_file.filename().string(), source.str(), value.value("options", "")};
    kernel.kernel_name = text(value, "kernel", item);
    for (const json& p : at(value, "parameters", item)) kernel.parameters.push_back(parameter(p, item + " parameter"));
    if (value.contains("constraints")) {
      for (const json& c : value["constraints"]) kernel.constraints.push_back(constraint(c, item + " constraint"));
    }
    kernel.launch = launch(at(value, "launch", item), item + " launch");
    if (value.contains("local_memory_bytes")) {
      for (const json& term : value["local_memory_bytes"]) {
        kernel.local_memory_bytes.push_back(product(term, item + " local_memory_bytes"));
      }
    }
    const json& harness = at(value, "harness", item);
    std::vector<bool> typed;  // per buffer: whether it gives its type
    for (const json& b : at(harness, "buffers", item + " harness")) {
      HarnessBuffer buffer;
      buffer.name = text(b, "name", item + " buffer");
      std::tie(buffer.elements, buffer.divide) = quotient(at(b, "elements", item + " buffer"), item + " buffer elements");
      buffer.fill = fill(b, item + " buffer '" + buffer.name + "'");
      if (buffer.fill == HarnessBuffer::Fill::constant) {
        const json& constant = at(b, "value", item + " buffer '" + buffer.name + "' (fill constant)");
        if (!constant.is_number()) fail(item + " buffer '" + buffer.name + "'", "\"value\" is not a number");
        buffer.constant = constant.get<double>();
      }
      if (buffer.fill == HarnessBuffer::Fill::file) {
        buffer.file = file.parent_path() / text(b, "file", item + " buffer '" + buffer.name + "' (fill file)");
      }
      buffer.output = b.value("output", false);
      buffer.reset_each_run = b.value("reset", buffer.output);
      const std::string type = b.value("type", "float");
      const std::optional<ScalarType> element = scalar_type_from_string(type);
      if (!element) {
        fail(item, "buffer '" + buffer.name + "' has type \"" + type +
                       "\"; use float, double, char, uchar, short, ushort, int, uint, long or ulong");
      }
      buffer.type = *element;
      typed.push_back(b.contains("type"));
      buffer.check = check(b, harness, item + " buffer '" + buffer.name + "'");
      if (b.contains("layout")) buffer.layout = layout(b["layout"], kernel, item + " buffer '" + buffer.name + "' layout");
      result.harness.buffers.push_back(buffer);
    }
    if (harness.contains("reference")) {
      const json& reference = harness["reference"];
      std::filesystem::path library = text(reference, "library", item + " reference");
      if (library.is_relative()) library = file.parent_path() / library;
      const std::string function = text(reference, "function", item + " reference");
      try {
        result.harness.reference = detail::load_shared_reference(library, function);
      } catch (const InvalidArgument& error) {
        fail(item + " reference", error.what());
      }
    }
    for (const json& a : at(harness, "arguments", item + " harness")) {
      result.harness.arguments.push_back(argument(a, item + " argument"));
    }
    if (harness.contains("passes")) {
      for (const json& p : harness["passes"]) result.harness.passes.push_back(pass(p, item + " pass"));
    }
    const Harness& built = result.harness;
    check_buffer_types(item, kernel.source.source, kernel.kernel_name, built.arguments, built.buffers, typed);
    for (const HarnessPass& pass : built.passes) {
      check_buffer_types(item + " pass '" + pass.kernel_name + "'", kernel.source.source, pass.kernel_name,
                         pass.arguments, built.buffers, typed);
    }
    for (const json& p : at(value, "problems", item)) result.default_problems.push_back(problem(p, item + " problem"));
    result.description = value.value("description", "from " + file.filename().string());
    try {
      kernel.validate();
    } catch (const InvalidArgument& error) {
      fail(item, error.what());
    }
    return result;
  }
};

}  // namespace

std::vector<TuningTarget> load_manifest(const std::filesystem::path& file) {
  const Reader reader{file};
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InvalidArgument("manifest " + file.string() + ": cannot be read");
  const json document = json::parse(in, nullptr, false);
  if (document.is_discarded()) reader.fail("the file", "is not valid JSON");
  std::vector<TuningTarget> targets;
  try {
    const json& kernels = reader.at(document, "kernels", "the top level");
    if (!kernels.is_array()) reader.fail("\"kernels\"", "is not an array");
    for (std::size_t i = 0; i < kernels.size(); ++i) {
      targets.push_back(reader.target(kernels[i], "kernel " + std::to_string(i)));
    }
  } catch (const json::exception& error) {
    reader.fail("a value", std::string("has the wrong type: ") + error.what());
  }
  return targets;
}

}  // namespace alloy::autotune

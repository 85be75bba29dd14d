// Tunable kernel descriptions and host layouts as JSON.
#include "tunable_kernel_json.hpp"

#include <limits>

#include "alloy/error.hpp"

namespace alloy::detail {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw InvalidArgument(where + ": " + what);
}

const json& array_member(const json& object, const char* key, const std::string& where) {
  const json& value = member(object, key, where);
  if (!value.is_array()) fail(where, std::string("\"") + key + "\" is not an array");
  return value;
}

std::vector<std::string> strings(const json& array, const std::string& where) {
  std::vector<std::string> result;
  for (const json& item : array) {
    if (!item.is_string()) fail(where, "holds something that is not a string");
    result.push_back(item.get<std::string>());
  }
  return result;
}

json to_json(const ParameterProduct& product) {
  return {{"factor", product.factor}, {"parameters", product.parameters}, {"dimensions", product.problem_dimensions}};
}

ParameterProduct product_from_json(const json& value, const std::string& where) {
  ParameterProduct product;
  product.factor = integer_member(value, "factor", where);
  product.parameters = strings(array_member(value, "parameters", where), where + " parameters");
  for (const json& dimension : array_member(value, "dimensions", where)) {
    if (!dimension.is_number_unsigned() || dimension.get<std::uint64_t>() > 2) {
      fail(where, "a problem dimension is not 0, 1 or 2");
    }
    product.problem_dimensions.push_back(dimension.get<unsigned>());
  }
  return product;
}

json fields_to_json(const std::vector<FieldFormat>& fields) {
  json result = json::array();
  for (const FieldFormat& field : fields) result.push_back({{"name", field.name}, {"type", to_string(field.type)}});
  return result;
}

std::vector<FieldFormat> fields_from_json(const json& array, const std::string& where) {
  std::vector<FieldFormat> fields;
  for (const json& field : array) {
    fields.push_back({string_member(field, "name", where), scalar_type_member(field, "type", where)});
  }
  return fields;
}

}  // namespace

const json& member(const json& object, const char* key, const std::string& where) {
  if (!object.is_object()) fail(where, "is not an object");
  const auto found = object.find(key);
  if (found == object.end()) fail(where, std::string("has no \"") + key + "\"");
  return *found;
}

std::string string_member(const json& object, const char* key, const std::string& where) {
  const json& value = member(object, key, where);
  if (!value.is_string()) fail(where, std::string("\"") + key + "\" is not a string");
  return value.get<std::string>();
}

std::int64_t integer_member(const json& object, const char* key, const std::string& where) {
  const json& value = member(object, key, where);
  if (!value.is_number_integer() ||
      (value.is_number_unsigned() && value.get<std::uint64_t>() > std::uint64_t(std::numeric_limits<std::int64_t>::max()))) {
    fail(where, std::string("\"") + key + "\" is not a 64-bit integer");
  }
  return value.get<std::int64_t>();
}

std::uint64_t unsigned_member(const json& object, const char* key, const std::string& where) {
  const json& value = member(object, key, where);
  if (!value.is_number_unsigned()) fail(where, std::string("\"") + key + "\" is not an integer >= 0");
  return value.get<std::uint64_t>();
}

ScalarType scalar_type_member(const json& object, const char* key, const std::string& where) {
  const std::string text = string_member(object, key, where);
  const std::optional<ScalarType> type = scalar_type_from_string(text);
  if (!type) fail(where, std::string("\"") + key + "\" is \"" + text + "\", which is no scalar type");
  return *type;
}

json to_json(const TunableKernel& kernel) {
  json parameters = json::array();
  for (const TuningParameter& parameter : kernel.parameters) {
    parameters.push_back({{"name", parameter.name},
                          {"values", parameter.values},
                          {"default", parameter.default_value},
                          {"value_names", parameter.value_names}});
  }
  json constraints = json::array();
  for (const TuningConstraint& constraint : kernel.constraints) {
    constraints.push_back(
        {{"kind", int(constraint.kind)}, {"left", to_json(constraint.left)}, {"right", to_json(constraint.right)}});
  }
  json launch = json::array();
  for (const LaunchDimensionRule& rule : kernel.launch) {
    launch.push_back({{"problem_dimension", rule.problem_dimension},
                      {"multiply", to_json(rule.multiply)},
                      {"divide", to_json(rule.divide)},
                      {"local", to_json(rule.local)}});
  }
  json local_memory = json::array();
  for (const ParameterProduct& term : kernel.local_memory_bytes) local_memory.push_back(to_json(term));
  json records = json::array();
  for (const RecordArgument& record : kernel.records) {
    records.push_back({{"parameter", record.parameter},
                       {"fields", fields_to_json(record.fields)},
                       {"count", record.count},
                       {"layout", record.layout}});
  }
  json matrices = json::array();
  for (const MatrixArgument& matrix : kernel.matrices) {
    matrices.push_back({{"parameter", matrix.parameter},
                        {"element", to_string(matrix.element)},
                        {"rows", matrix.rows},
                        {"columns", matrix.columns},
                        {"layout", matrix.layout}});
  }
  return {{"name", kernel.name},
          {"source_name", kernel.source.name},
          {"source", kernel.source.source},
          {"options", kernel.source.options},
          {"kernel", kernel.kernel_name},
          {"parameters", std::move(parameters)},
          {"constraints", std::move(constraints)},
          {"launch", std::move(launch)},
          {"local_memory_bytes", std::move(local_memory)},
          {"records", std::move(records)},
          {"matrices", std::move(matrices)}};
}

TunableKernel tunable_kernel_from_json(const json& value, const std::string& where) {
  TunableKernel kernel;
  kernel.name = string_member(value, "name", where);
  kernel.source = {string_member(value, "source_name", where), string_member(value, "source", where),
                   string_member(value, "options", where)};
  kernel.kernel_name = string_member(value, "kernel", where);
  for (const json& p : array_member(value, "parameters", where)) {
    const std::string in = where + " parameter";
    TuningParameter parameter;
    parameter.name = string_member(p, "name", in);
    for (const json& v : array_member(p, "values", in)) {
      if (!v.is_number_integer()) fail(in, "has a value that is not an integer");
      parameter.values.push_back(v.get<std::int64_t>());
    }
    parameter.default_value = integer_member(p, "default", in);
    parameter.value_names = strings(array_member(p, "value_names", in), in + " value_names");
    kernel.parameters.push_back(std::move(parameter));
  }
  for (const json& c : array_member(value, "constraints", where)) {
    const std::string in = where + " constraint";
    const std::int64_t kind = integer_member(c, "kind", in);
    if (kind < 0 || kind > int(TuningConstraint::Kind::equal)) fail(in, "has an unknown kind");
    kernel.constraints.push_back({TuningConstraint::Kind(kind), product_from_json(member(c, "left", in), in),
                                  product_from_json(member(c, "right", in), in)});
  }
  for (const json& r : array_member(value, "launch", where)) {
    const std::string in = where + " launch rule";
    const std::int64_t dimension = integer_member(r, "problem_dimension", in);
    if (dimension < 0 || dimension > 2) fail(in, "has a problem dimension other than 0, 1 or 2");
    kernel.launch.push_back({unsigned(dimension), product_from_json(member(r, "multiply", in), in),
                             product_from_json(member(r, "divide", in), in),
                             product_from_json(member(r, "local", in), in)});
  }
  for (const json& term : array_member(value, "local_memory_bytes", where)) {
    kernel.local_memory_bytes.push_back(product_from_json(term, where + " local memory"));
  }
  for (const json& r : array_member(value, "records", where)) {
    const std::string in = where + " record argument";
    kernel.records.push_back({string_member(r, "parameter", in), fields_from_json(array_member(r, "fields", in), in),
                              string_member(r, "count", in), string_member(r, "layout", in)});
  }
  for (const json& m : array_member(value, "matrices", where)) {
    const std::string in = where + " matrix argument";
    kernel.matrices.push_back({string_member(m, "parameter", in), scalar_type_member(m, "element", in),
                               string_member(m, "rows", in), string_member(m, "columns", in),
                               string_member(m, "layout", in)});
  }
  try {
    kernel.validate();
  } catch (const InvalidArgument& error) {
    fail(where, error.what());
  }
  return kernel;
}

json to_json(const HostLayout& layout) {
  if (const auto* record = std::get_if<HostRecord>(&layout)) {
    json fields = json::array();
    for (const HostField& field : record->fields) {
      fields.push_back({{"name", field.name}, {"type", to_string(field.type)}, {"offset", field.offset}});
    }
    return {{"record", record->name}, {"fields", std::move(fields)}, {"size", record->size}};
  }
  const HostMatrix& matrix = std::get<HostMatrix>(layout);
  return {{"rows", matrix.rows},
          {"columns", matrix.columns},
          {"column_major", matrix.column_major},
          {"pitch", matrix.pitch},
          {"element", to_string(matrix.element)}};
}

HostLayout host_layout_from_json(const json& value, const std::string& where) {
  try {
    if (value.is_object() && value.contains("record")) {
      HostRecord record;
      record.name = string_member(value, "record", where);
      for (const json& f : array_member(value, "fields", where)) {
        record.fields.push_back({string_member(f, "name", where), scalar_type_member(f, "type", where),
                                 std::size_t(unsigned_member(f, "offset", where))});
      }
      record.size = std::size_t(unsigned_member(value, "size", where));
      record.validate();
      return record;
    }
    HostMatrix matrix;
    matrix.rows = std::size_t(unsigned_member(value, "rows", where));
    matrix.columns = std::size_t(unsigned_member(value, "columns", where));
    const json& column_major = member(value, "column_major", where);
    if (!column_major.is_boolean()) fail(where, "\"column_major\" is not true or false");
    matrix.column_major = column_major.get<bool>();
    matrix.pitch = std::size_t(unsigned_member(value, "pitch", where));
    matrix.element = scalar_type_member(value, "element", where);
    matrix.validate();
    return matrix;
  } catch (const InvalidArgument& error) {
    const std::string message = error.what();
    if (message.rfind(where, 0) == 0) throw;
    fail(where, message);
  }
}

}  // namespace alloy::detail

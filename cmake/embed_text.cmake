# Script mode: writes OUTPUT, a header holding the text of INPUT as SYMBOL;
# its first line names ORIGIN, the input's path in the project.
file(READ ${INPUT} content)
if(content MATCHES "\\)alloy_embed\"")
  message(FATAL_ERROR "${INPUT} contains the raw-string delimiter )alloy_embed\"")
endif()
file(WRITE ${OUTPUT}.tmp
  "// Generated from ${ORIGIN}; edit that file instead.\n"
  "#pragma once\n#include <string_view>\n\n"
  "namespace alloy_kernels {\n"
  "inline constexpr std::string_view ${SYMBOL} = R\"alloy_embed(${content})alloy_embed\";\n"
  "}\n")
file(RENAME ${OUTPUT}.tmp ${OUTPUT})

# Writes a C++ source that holds a text file as a string (cmake -P, at build time):
#   cmake -DINPUT=<file> -DOUTPUT=<file.cpp> -DSYMBOL=<name> -P embed_text.cmake
# The text goes into raw string literals; it is cut into pieces so that no piece reaches the
# length some compilers limit a single literal to, and the pieces are concatenated by the
# compiler. The delimiter cannot occur in the text (checked).
file(READ "${INPUT}" text)
set(delimiter "rx_embed")
string(FIND "${text}" ")${delimiter}\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw string delimiter ')${delimiter}\"'")
endif()
string(LENGTH "${text}" length)
set(body "")
set(offset 0)
while(offset LESS length)
  string(SUBSTRING "${text}" ${offset} 8000 piece)
  string(APPEND body "    R\"${delimiter}(${piece})${delimiter}\"\n")
  math(EXPR offset "${offset} + 8000")
endwhile()
if(body STREQUAL "")
  set(body "    \"\"\n")
endif()
file(WRITE "${OUTPUT}.tmp"
     "// Generated from ${INPUT} by embed_text.cmake; do not edit.\n"
     "#include <string_view>\n\n"
     "namespace raxc {\n"
     "extern const std::string_view ${SYMBOL};\n"
     "const std::string_view ${SYMBOL} =\n${body};\n"
     "}  // namespace raxc\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")

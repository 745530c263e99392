# Turns the server-side scripts (core/*/lua/*.lua) into one C++ header of raw string literals, so
# the binary carries them. LUA_SCRIPTS: the scripts, '|'-separated; OUT: the header to write.
string(REPLACE "|" ";" scripts "${LUA_SCRIPTS}")
list(SORT scripts)
set(body "// Generated from core/*/lua/*.lua by core/embedlua.cmake; do not edit.\n#pragma once\n\nnamespace reclaim::lua {\n")
foreach(script IN LISTS scripts)
    get_filename_component(name "${script}" NAME_WE)
    file(READ "${script}" text)
    string(APPEND body "inline constexpr char ${name}[] = R\"RECLAIMLUA(${text})RECLAIMLUA\";\n")
endforeach()
string(APPEND body "} // namespace reclaim::lua\n")
file(WRITE "${OUT}.tmp" "${body}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUT}.tmp" "${OUT}")

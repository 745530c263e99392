# The shipped Prometheus alerting rules (packaging/prometheus): valid (promtool check rules) and
# firing exactly as their unit tests say (promtool test rules). promtool comes with Debian's
# prometheus package, which tools/setup.sh installs; without it this test fails, never skips.
find_program(PROMTOOL promtool)
if(NOT PROMTOOL)
    message(FATAL_ERROR "promtool not found: install Debian's prometheus package (tools/setup.sh)")
endif()
foreach(args "check;rules;reclaim-alerts.yml" "test;rules;reclaim-alerts.test.yml")
    execute_process(COMMAND ${PROMTOOL} ${args}
        WORKING_DIRECTORY "${RULES_DIR}"
        RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out
        TIMEOUT 120)
    message("${out}")
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "promtool ${args} failed (${rc})")
    endif()
endforeach()

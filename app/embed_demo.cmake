# Turns a JSON file into a header holding it as a raw string literal.
file(READ ${INPUT} CONTENT)
file(WRITE ${OUTPUT} "// Generated from scenarios/demo.json; do not edit.\n#pragma once\nnamespace goodsim::app {\ninline constexpr const char* kDemoScenarioJson = R\"GOODSIM_JSON(${CONTENT})GOODSIM_JSON\";\n}\n")

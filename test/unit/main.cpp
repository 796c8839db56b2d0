// The one Catch2 main of raxc_unit_tests. Test files: test/unit/*_test.cpp, each including
// <catch2/catch.hpp> only (never defining CATCH_CONFIG_MAIN).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

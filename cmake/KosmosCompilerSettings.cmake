# Compiler settings shared by every Kosmos target.
set(CMAKE_CXX_STANDARD 20)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_EXPORT_COMPILE_COMMANDS ON)

if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
    set(CMAKE_BUILD_TYPE RelWithDebInfo CACHE STRING "Build type" FORCE)
endif()

find_program(KOSMOS_CCACHE ccache)
if(KOSMOS_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
    set(CMAKE_CXX_COMPILER_LAUNCHER "${KOSMOS_CCACHE}")
endif()

# Warnings for our own targets only (third-party headers are SYSTEM includes).
add_library(kosmos_warnings INTERFACE)
add_library(Kosmos::warnings ALIAS kosmos_warnings)
target_compile_options(kosmos_warnings INTERFACE
    $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor>)
option(KOSMOS_WERROR "Treat warnings as errors" OFF)
if(KOSMOS_WERROR)
    target_compile_options(kosmos_warnings INTERFACE -Werror)
endif()

# Sanitizers for the whole build (presets asan and tsan; scripts/sanitize.sh runs them).
set(KOSMOS_SANITIZE "" CACHE STRING "Sanitizers, e.g. address;undefined or thread (empty: none)")
if(KOSMOS_SANITIZE)
    list(JOIN KOSMOS_SANITIZE "," kosmos_sanitizers)
    add_compile_options(-fsanitize=${kosmos_sanitizers} -fno-omit-frame-pointer)
    add_link_options(-fsanitize=${kosmos_sanitizers})
    # GCC's flow analysis under ASan reports std::function inside std::regex as maybe
    # uninitialized (a known false positive); the plain build keeps the warning.
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
        add_compile_options(-Wno-maybe-uninitialized)
    endif()
    if("undefined" IN_LIST KOSMOS_SANITIZE)
        # A finding fails the test instead of printing and going on.
        add_compile_options(-fno-sanitize-recover=undefined)
    endif()
endif()

# Hardened linking, as Debian builds its packages (lintian: hardening-no-relro, -no-bindnow):
# relocations read-only after start-up, symbols bound at load time.
if(NOT KOSMOS_SANITIZE AND CMAKE_SYSTEM_NAME STREQUAL "Linux")
    add_link_options(LINKER:-z,relro LINKER:-z,now)
    # And compiled as Debian's dpkg-buildflags compile (lintian: hardening-no-fortify-functions):
    # glibc's checked string and memory functions where the sizes are known (needs optimization,
    # so not in Debug builds), and stack protectors.
    add_compile_definitions($<$<NOT:$<CONFIG:Debug>>:_FORTIFY_SOURCE=2>)
    add_compile_options(-fstack-protector-strong)
endif()

# The fuzz preset instruments every object for libFuzzer's coverage; fuzz/ links the driver.
if(KOSMOS_BUILD_FUZZERS)
    add_compile_options(-fsanitize=fuzzer-no-link)
endif()

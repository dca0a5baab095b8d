# The plugin ABI check: kosmos_check_plugin_abi(SOURCE_DIR VERSION) fails (FATAL_ERROR) unless
# adapters/api/abi-digest.txt records VERSION and the SHA-256 over KOSMOS_PLUGIN_ABI_HEADERS as
# they are. cmake/KosmosPlugin.cmake calls it at configure time; in script mode
#   cmake -DSOURCE_DIR=... -DVERSION=N -P cmake/CheckPluginAbi.cmake
# runs it on another tree (tests/tools/check_plugin_abi_test.sh).
#
# The plugin ABI's headers: every type that crosses between a plugin module and the host that
# loads it is declared here (the closure of their includes inside the tree is checked below). A
# change to any of them without a new KOSMOS_ADAPTER_API_VERSION fails the check.
set(KOSMOS_PLUGIN_ABI_HEADERS
    adapters/api/KosmosPlugin.h adapters/api/KosmosApiVersion.h.in core/components/Components.h
    core/contracts/ActionContract.h core/contracts/ContractCheck.h core/contracts/FrameContract.h
    core/contracts/ReasonCodes.h)

function(kosmos_check_plugin_abi source_dir version)
    set(lines "")
    foreach(header IN LISTS KOSMOS_PLUGIN_ABI_HEADERS)
        set(path "${source_dir}/${header}")
        file(SHA256 "${path}" digest)
        string(APPEND lines "${header} ${digest}\n")
        file(STRINGS "${path}" includes REGEX "^#include \"[a-z_]+/")
        foreach(line IN LISTS includes)
            string(REGEX REPLACE "^#include \"([^\"]+)\".*" "\\1" included "${line}")
            set(found FALSE)
            foreach(candidate IN LISTS KOSMOS_PLUGIN_ABI_HEADERS)
                if(candidate MATCHES "/${included}(\\.in)?$")
                    set(found TRUE)
                endif()
            endforeach()
            if(NOT found)
                message(FATAL_ERROR "${header} includes ${included}, which is not one of the plugin "
                    "ABI headers (KOSMOS_PLUGIN_ABI_HEADERS in cmake/CheckPluginAbi.cmake): add it there")
            endif()
        endforeach()
    endforeach()
    string(SHA256 digest "${lines}")
    set(record "${source_dir}/adapters/api/abi-digest.txt")
    file(STRINGS "${record}" recorded REGEX "^[0-9]+ [0-9a-f]+$" LIMIT_COUNT 1)
    string(REPLACE " " ";" recorded "${recorded}")
    list(GET recorded 0 recorded_version)
    list(GET recorded 1 recorded_digest)
    if(NOT recorded_version EQUAL version)
        if(recorded_digest STREQUAL digest)
            set(why "the API version changed to ${version} and the headers did not")
        else()
            set(why "the API version is now ${version}")
        endif()
        message(FATAL_ERROR "The plugin ABI record is for API version ${recorded_version}; ${why}. "
            "Record this version's headers: write the line\n  ${version} ${digest}\n"
            "into adapters/api/abi-digest.txt.")
    endif()
    if(NOT recorded_digest STREQUAL digest)
        math(EXPR next "${version} + 1")
        message(FATAL_ERROR "The plugin ABI headers changed (${KOSMOS_PLUGIN_ABI_HEADERS}) but "
            "KOSMOS_ADAPTER_API_VERSION is still ${version}: plugins built against version "
            "${version} would load and break. Raise it to ${next} in cmake/KosmosPlugin.cmake (a "
            "change that keeps the ABI, such as a comment, still needs the record: write \""
            "${version} ${digest}\" into adapters/api/abi-digest.txt and say why in the commit).")
    endif()
endfunction()

if(CMAKE_SCRIPT_MODE_FILE AND CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
    kosmos_check_plugin_abi("${SOURCE_DIR}" ${VERSION})
    message(STATUS "plugin ABI record matches API version ${VERSION}")
endif()

# The plugin API version and the one way a plugin module is built (docs/plugins.md).
#
# KOSMOS_ADAPTER_API_VERSION is the single place the adapter API major version is written: it
# becomes the IID suffix and the host's constant (adapters/api/KosmosApiVersion.h.in) and is
# stamped into every plugin's JSON metadata as "api_version" by kosmos_add_plugin, so the three
# cannot disagree.
# 3: WorldModel::state(), Observation::state and GroundTruth::source (the physics world).
# 4: Policy::maxBatch/actBatch and WorldModel::maxBatch/stepBatch (batched episodes, --batch N);
#    Judge::maxBatch/sampleBatch (a judgment's samples in one call).
# 5: WorldStart::cancelled (a world's call abandoned mid-call when the run is cancelled).
set(KOSMOS_ADAPTER_API_VERSION 5)

# The plugin ABI check (cmake/CheckPluginAbi.cmake): a change to the headers that declare what
# crosses between a plugin module and the host that loads it, without a new
# KOSMOS_ADAPTER_API_VERSION, fails the configure step, which those headers re-run when edited, so
# the build fails (docs/plugins.md, "The API version").
include(CheckPluginAbi)
foreach(header IN LISTS KOSMOS_PLUGIN_ABI_HEADERS ITEMS adapters/api/abi-digest.txt)
    set_property(DIRECTORY "${PROJECT_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
        "${PROJECT_SOURCE_DIR}/${header}")
endforeach()
kosmos_check_plugin_abi("${PROJECT_SOURCE_DIR}" ${KOSMOS_ADAPTER_API_VERSION})

# kosmos_add_plugin(<target>
#     [METADATA <name>.meta.json]   metadata without api_version; the build writes <name>.json
#                                   (api_version stamped) where moc finds Q_PLUGIN_METADATA FILE
#     [API_VERSION <n>]             stamp another version (a test fixture of a wrong API only)
#     [OUTPUT_DIRECTORY <dir>]      default <build>/lib/<multiarch>/kosmos/plugins, as installed
#     [METADATA_SET <key> <json>...] members the build adds to the metadata (e.g. the runtime
#                                   a torch plugin was built with: libtorch version, CUDA, AOTI)
#     [NO_INSTALL]                  a test fixture
#     SOURCES <file>...
#     [LINK <library>...])          linked PRIVATE beside Kosmos::adapter_api
function(kosmos_add_plugin target)
    cmake_parse_arguments(PARSE_ARGV 1 arg "NO_INSTALL" "METADATA;API_VERSION;OUTPUT_DIRECTORY;COMPONENT"
        "SOURCES;LINK;METADATA_SET")
    if(arg_UNPARSED_ARGUMENTS)
        message(FATAL_ERROR "kosmos_add_plugin(${target}): unknown arguments ${arg_UNPARSED_ARGUMENTS}")
    endif()
    if(NOT arg_API_VERSION)
        set(arg_API_VERSION ${KOSMOS_ADAPTER_API_VERSION})
    endif()
    if(NOT arg_OUTPUT_DIRECTORY)
        set(arg_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/${KOSMOS_PKGLIBDIR}/plugins")
    endif()
    if(NOT arg_COMPONENT)
        set(arg_COMPONENT kosmos)
    endif()
    add_library(${target} MODULE ${arg_SOURCES})
    if(arg_METADATA)
        get_filename_component(source "${arg_METADATA}" ABSOLUTE)
        get_filename_component(name "${source}" NAME)
        if(NOT name MATCHES "\\.meta\\.json$")
            message(FATAL_ERROR "kosmos_add_plugin(${target}): METADATA must be a .meta.json file")
        endif()
        string(REGEX REPLACE "\\.meta\\.json$" ".json" name "${name}")
        file(READ "${source}" json)
        string(JSON existing ERROR_VARIABLE no_version GET "${json}" api_version)
        if(NOT no_version)
            message(FATAL_ERROR "${source}: api_version is stamped by the build "
                "(KOSMOS_ADAPTER_API_VERSION in cmake/KosmosPlugin.cmake); remove it")
        endif()
        string(JSON json SET "${json}" api_version ${arg_API_VERSION})
        while(arg_METADATA_SET)
            list(POP_FRONT arg_METADATA_SET key value)
            string(JSON json SET "${json}" "${key}" "${value}")
        endwhile()
        set(dir "${CMAKE_CURRENT_BINARY_DIR}/plugin-metadata/${target}")
        set(old "")
        if(EXISTS "${dir}/${name}")
            file(READ "${dir}/${name}" old)
        endif()
        if(NOT old STREQUAL "${json}\n")
            file(WRITE "${dir}/${name}" "${json}\n") # only when changed: no needless moc reruns
        endif()
        set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${source}")
        target_include_directories(${target} PRIVATE "${dir}")
        target_sources(${target} PRIVATE "${source}")
    endif()
    set_target_properties(${target} PROPERTIES
        AUTOMOC ON
        PREFIX ""
        LIBRARY_OUTPUT_DIRECTORY "${arg_OUTPUT_DIRECTORY}")
    target_link_libraries(${target} PRIVATE Kosmos::adapter_api ${arg_LINK})
    if(NOT arg_NO_INSTALL)
        install(TARGETS ${target} LIBRARY DESTINATION "${KOSMOS_PKGLIBDIR}/plugins"
            COMPONENT ${arg_COMPONENT})
    endif()
endfunction()

# Installing and packaging (docs/packaging.md): the desktop integration files, the installed data,
# man pages and bash completion generated from the programs themselves, and CPack's Debian
# packages. scripts/package.sh builds the .deb files; tests/packaging/install-test.sh installs
# them into a clean Debian 12 root.
#
# Components, one Debian package each:
#   kosmos          the workstation, kosmos-cli, the plugins that need neither MuJoCo nor libtorch
#                   (synthetic, remote, replay, OpenAI-compatible judge), translations, examples,
#                   desktop entry, icons, AppStream metadata, MIME type, man pages, completion
#   kosmos-physics  the MuJoCo physics reference world and its scripted policies
#   kosmos-torch    the libtorch adapter plugins and the shipped model packages (models/)
#   kosmos-datasets the Parquet module for LeRobot datasets and the Arrow/Parquet C++ libraries it
#                   needs (from the pinned pyarrow wheel; Debian 12 has no Arrow package)

set(KOSMOS_APP_ID "io.github.kosmos_workstation.Kosmos")
# The components this build has (each a package; CPACK_COMPONENTS_ALL below).
set(KOSMOS_COMPONENTS kosmos)
if(KOSMOS_HAVE_MUJOCO)
    list(APPEND KOSMOS_COMPONENTS physics)
endif()
if(KOSMOS_HAVE_TORCH)
    list(APPEND KOSMOS_COMPONENTS torch)
endif()
if(KOSMOS_HAVE_ARROW)
    list(APPEND KOSMOS_COMPONENTS datasets)
    # The module beside the CLI's verbs, and Arrow's libraries beside it under their sonames (its
    # RUNPATH is $ORIGIN): private to Kosmos, never in the linker's search path.
    install(TARGETS kosmos_parquet LIBRARY DESTINATION "${KOSMOS_PKGLIBDIR}" COMPONENT datasets)
    foreach(lib arrow parquet)
        file(REAL_PATH "${KOSMOS_ARROW_DIR}/lib${lib}.so" real)
        execute_process(COMMAND objdump -p "${real}" OUTPUT_VARIABLE dyn)
        string(REGEX MATCH "SONAME +([^ \n]+)" _ "${dyn}")
        # Stripped copies (the wheel's carry their symbol tables; CPack strips only targets).
        set(stripped "${PROJECT_BINARY_DIR}/packaging/arrow/${CMAKE_MATCH_1}")
        add_custom_command(OUTPUT "${stripped}" DEPENDS "${real}"
            COMMAND ${CMAKE_COMMAND} -E make_directory "${PROJECT_BINARY_DIR}/packaging/arrow"
            COMMAND objcopy --strip-unneeded "${real}" "${stripped}"
            COMMENT "Stripping ${CMAKE_MATCH_1} for kosmos-datasets" VERBATIM)
        list(APPEND arrow_stripped "${stripped}")
    endforeach()
    add_custom_target(kosmos_arrow_stripped ALL DEPENDS ${arrow_stripped})
    install(FILES ${arrow_stripped} DESTINATION "${KOSMOS_PKGLIBDIR}"
        PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ COMPONENT datasets)
    # Arrow's wheel links bzip2, curl, libxml2 and zlib statically: lintian's embedded-library,
    # overridden with the reason (packaging/debian/kosmos-datasets.lintian-overrides).
    install(FILES "${PROJECT_SOURCE_DIR}/packaging/debian/kosmos-datasets.lintian-overrides"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/lintian/overrides" RENAME kosmos-datasets
        COMPONENT datasets)
    file(GLOB arrow_notices "${KOSMOS_ARROW_DIR}/../pyarrow-*.dist-info/licenses/*.txt")
    foreach(notice IN LISTS arrow_notices)
        get_filename_component(name "${notice}" NAME)
        install(FILES "${notice}" DESTINATION "${CMAKE_INSTALL_DATADIR}/doc/kosmos-datasets"
            RENAME "arrow-${name}" COMPONENT datasets)
    endforeach()
endif()
set(linux "${PROJECT_SOURCE_DIR}/packaging/linux")

install(FILES "${linux}/${KOSMOS_APP_ID}.desktop"
    DESTINATION "${CMAKE_INSTALL_DATADIR}/applications" COMPONENT kosmos)
install(FILES "${linux}/${KOSMOS_APP_ID}.metainfo.xml"
    DESTINATION "${CMAKE_INSTALL_DATADIR}/metainfo" COMPONENT kosmos)
install(FILES "${linux}/${KOSMOS_APP_ID}.mime.xml"
    DESTINATION "${CMAKE_INSTALL_DATADIR}/mime/packages" RENAME "${KOSMOS_APP_ID}.xml"
    COMPONENT kosmos)
install(DIRECTORY "${PROJECT_SOURCE_DIR}/packaging/icons/hicolor"
    DESTINATION "${CMAKE_INSTALL_DATADIR}/icons" COMPONENT kosmos)
install(DIRECTORY "${PROJECT_SOURCE_DIR}/examples/"
    DESTINATION "${KOSMOS_PKGDATADIR}/examples" COMPONENT kosmos)
# The reference world server for remote.world (docs/remote-worlds.md): run it with
# PYTHONPATH=/usr/share/kosmos/python python3 -m kosmos_world ..., or pip install it from there.
install(DIRECTORY "${PROJECT_SOURCE_DIR}/python/"
    DESTINATION "${KOSMOS_PKGDATADIR}/python" COMPONENT kosmos
    PATTERN "__pycache__" EXCLUDE PATTERN "*.egg-info" EXCLUDE)
install(FILES "${PROJECT_SOURCE_DIR}/docs/user-guide.md"
    DESTINATION "${CMAKE_INSTALL_DATADIR}/doc/kosmos" COMPONENT kosmos)
if(KOSMOS_HAVE_TORCH)
    install(DIRECTORY "${PROJECT_SOURCE_DIR}/models/"
        DESTINATION "${KOSMOS_PKGDATADIR}/models" COMPONENT torch)
endif()

# Man pages from the programs' own --help (help2man) and bash completion from
# `kosmos-cli completion bash`: generated after the programs are linked, so they never differ from
# what the programs say. Not in sanitizer builds (running an instrumented program at build time
# would fail the build on a leak report).
find_program(KOSMOS_HELP2MAN help2man)
find_program(KOSMOS_GZIP gzip)
if(KOSMOS_HELP2MAN AND KOSMOS_GZIP AND NOT KOSMOS_SANITIZE)
    set(mandir "${PROJECT_BINARY_DIR}/share/man/man1")
    set(completions "${PROJECT_BINARY_DIR}/share/bash-completion/completions")
    # argv[0] without a folder, so the pages say "kosmos-cli", not a build path.
    set(run_env "${CMAKE_COMMAND}" -E env "PATH=${PROJECT_BINARY_DIR}/bin:$ENV{PATH}"
        QT_QPA_PLATFORM=offscreen XDG_RUNTIME_DIR=${PROJECT_BINARY_DIR}/tmp-runtime
        SOURCE_DATE_EPOCH=1796342400)
    add_custom_command(OUTPUT "${mandir}/kosmos-cli.1.gz" "${mandir}/kosmos.1.gz"
        COMMAND "${CMAKE_COMMAND}" -E make_directory "${mandir}" "${PROJECT_BINARY_DIR}/tmp-runtime"
        COMMAND ${run_env} "${KOSMOS_HELP2MAN}" --no-info --section=1
            "--name=run, verify, merge and report robot-policy evaluations from the command line"
            "--include=${PROJECT_SOURCE_DIR}/packaging/man/kosmos-cli.h2m"
            "--output=${mandir}/kosmos-cli.1" kosmos-cli
        COMMAND ${run_env} "${KOSMOS_HELP2MAN}" --no-info --section=1
            "--name=the Kosmos Workstation: review and evaluate robot-policy rollouts"
            "--include=${PROJECT_SOURCE_DIR}/packaging/man/kosmos.h2m"
            "--output=${mandir}/kosmos.1" kosmos
        COMMAND "${KOSMOS_GZIP}" -9nf "${mandir}/kosmos-cli.1" "${mandir}/kosmos.1"
        DEPENDS kosmos-cli kosmos-cli-verbs kosmos
            "${PROJECT_SOURCE_DIR}/packaging/man/kosmos-cli.h2m"
            "${PROJECT_SOURCE_DIR}/packaging/man/kosmos.h2m"
        COMMENT "Man pages from --help (help2man)"
        VERBATIM)
    add_custom_command(OUTPUT "${completions}/kosmos-cli"
        COMMAND "${CMAKE_COMMAND}" -E make_directory "${completions}"
        COMMAND ${run_env} sh -c "kosmos-cli completion bash > '${completions}/kosmos-cli'"
        DEPENDS kosmos-cli kosmos-cli-verbs
        COMMENT "Bash completion from kosmos-cli completion bash"
        VERBATIM)
    add_custom_target(kosmos_manpages ALL
        DEPENDS "${mandir}/kosmos-cli.1.gz" "${mandir}/kosmos.1.gz" "${completions}/kosmos-cli")
    install(FILES "${mandir}/kosmos-cli.1.gz" "${mandir}/kosmos.1.gz"
        DESTINATION "${CMAKE_INSTALL_MANDIR}/man1" COMPONENT kosmos)
    install(FILES "${completions}/kosmos-cli"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/bash-completion/completions" COMPONENT kosmos)
    set(KOSMOS_HAVE_MANPAGES ON)
elseif(NOT KOSMOS_SANITIZE)
    message(STATUS "help2man not found: no man pages or bash completion in this build "
        "(scripts/setup-debian.sh installs it)")
endif()

# Each package's /usr/share/doc/<package>: copyright and a Debian changelog (Debian policy 12.5,
# 12.7), the changelog written by scripts/package.sh for the version it builds.
set(KOSMOS_DEB_CHANGELOG "${PROJECT_BINARY_DIR}/packaging/changelog.Debian.gz")
foreach(component IN LISTS KOSMOS_COMPONENTS)
    if(component STREQUAL "kosmos")
        set(package kosmos)
    else()
        set(package kosmos-${component})
    endif()
    install(FILES "${PROJECT_SOURCE_DIR}/packaging/debian/copyright"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/doc/${package}" COMPONENT ${component})
    install(FILES "${KOSMOS_DEB_CHANGELOG}" OPTIONAL
        DESTINATION "${CMAKE_INSTALL_DATADIR}/doc/${package}" COMPONENT ${component})
endforeach()

# ---- CPack: Debian packages -------------------------------------------------------------------
set(CPACK_PACKAGE_NAME kosmos)
set(CPACK_PACKAGE_VENDOR "The Kosmos Workstation developers")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_HOMEPAGE_URL "${PROJECT_HOMEPAGE_URL}")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR DEB)
set(CPACK_COMPONENTS_ALL ${KOSMOS_COMPONENTS})
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "The Kosmos Workstation developers <kosmos@users.noreply.github.com>")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Library dependencies are what dpkg-shlibdeps finds in the binaries, never a hand-kept list.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS OFF)

set(CPACK_DEBIAN_KOSMOS_PACKAGE_NAME kosmos)
set(CPACK_DEBIAN_KOSMOS_PACKAGE_SECTION science)
# Loaded at run time, so dpkg-shlibdeps cannot see them: the SQLite driver of Qt Sql (the
# workstation's read models), Qt Multimedia's FFmpeg backend (reference videos), the platform
# plugins and Qt's image formats.
set(CPACK_DEBIAN_KOSMOS_PACKAGE_DEPENDS "libqt6sql6-sqlite, qt6-qpa-plugins, libqt6multimedia6")
set(CPACK_DEBIAN_KOSMOS_PACKAGE_RECOMMENDS "kosmos-physics, kosmos-datasets, xdg-utils, qt6-translations-l10n")
set(CPACK_DEBIAN_KOSMOS_PACKAGE_SUGGESTS "kosmos-torch, slurm-client")
set(CPACK_COMPONENT_KOSMOS_DESCRIPTION
    "Kosmos Workstation: auditable robot-policy evaluation in world models
Evaluates robot policies inside learned world models and keeps the evidence:
every run is recorded in an SQLite ledger with its inputs, content-hashed
frames and actions, timings, failures and judge verdicts.

This package holds the workstation (kosmos), the command-line twin
(kosmos-cli), the synthetic, remote (openpi, OpenVLA), replay and
OpenAI-compatible judge plugins, translations and example protocols. The
physics reference world is in kosmos-physics, the libtorch adapters and the
shipped model packages in kosmos-torch.")

set(CPACK_DEBIAN_PHYSICS_PACKAGE_NAME kosmos-physics)
set(CPACK_DEBIAN_PHYSICS_PACKAGE_DEPENDS "kosmos (= __KOSMOS_DEB_VERSION__), libgl1-mesa-dri")
set(CPACK_COMPONENT_PHYSICS_DESCRIPTION
    "Kosmos Workstation: MuJoCo physics reference world
The physics.tabletop world (MuJoCo, rendered headless through EGL) and its
scripted policies: a ground truth for Kosmos Workstation's world-model
fidelity reports. A simulated rollout is not evidence of real robot-task
success.")

set(CPACK_DEBIAN_TORCH_PACKAGE_NAME kosmos-torch)
set(CPACK_DEBIAN_TORCH_PACKAGE_DEPENDS "kosmos (= __KOSMOS_DEB_VERSION__)")
set(CPACK_COMPONENT_TORCH_DESCRIPTION
    "Kosmos Workstation: libtorch adapters and shipped models
The torch.* policy, world-model and judge plugins of Kosmos Workstation
(TorchScript packages; CPU with Debian's libtorch) and the small model
packages trained on the physics world, in /usr/share/kosmos/models.")

set(CPACK_DEBIAN_DATASETS_PACKAGE_NAME kosmos-datasets)
set(CPACK_DEBIAN_DATASETS_PACKAGE_DEPENDS "kosmos (= __KOSMOS_DEB_VERSION__)")
# Arrow's libraries are the package's own, in its private folder.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS "${CMAKE_INSTALL_PREFIX}/${KOSMOS_PKGLIBDIR}")
set(CPACK_COMPONENT_DATASETS_DESCRIPTION
    "Kosmos Workstation: LeRobot datasets
The Parquet module with which Kosmos Workstation opens and imports LeRobot
datasets (codebase v3.0 and v2.1), and the Apache Arrow and Parquet C++
libraries it needs, from the pyarrow wheel the build was made with.")

# scripts/package.sh passes the version built (project version, and the git commit when HEAD is
# not a release tag) as KOSMOS_DEB_VERSION; the per-component Depends above name it.
set(CPACK_PROJECT_CONFIG_FILE "${PROJECT_BINARY_DIR}/packaging/CPackProjectConfig.cmake")
file(WRITE "${CPACK_PROJECT_CONFIG_FILE}" [=[
if(KOSMOS_DEB_VERSION)
    set(CPACK_PACKAGE_VERSION "${KOSMOS_DEB_VERSION}")
    set(CPACK_DEBIAN_PACKAGE_VERSION "${KOSMOS_DEB_VERSION}")
else()
    set(KOSMOS_DEB_VERSION "${CPACK_PACKAGE_VERSION}")
endif()
set(full "${KOSMOS_DEB_VERSION}-${CPACK_DEBIAN_PACKAGE_RELEASE}")
string(REPLACE "__KOSMOS_DEB_VERSION__" "${full}" CPACK_DEBIAN_PHYSICS_PACKAGE_DEPENDS "${CPACK_DEBIAN_PHYSICS_PACKAGE_DEPENDS}")
string(REPLACE "__KOSMOS_DEB_VERSION__" "${full}" CPACK_DEBIAN_TORCH_PACKAGE_DEPENDS "${CPACK_DEBIAN_TORCH_PACKAGE_DEPENDS}")
string(REPLACE "__KOSMOS_DEB_VERSION__" "${full}" CPACK_DEBIAN_DATASETS_PACKAGE_DEPENDS "${CPACK_DEBIAN_DATASETS_PACKAGE_DEPENDS}")
]=])
include(CPack)

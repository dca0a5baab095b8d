#!/usr/bin/env python3
"""Replace a shared library by a stub with the same SONAME, version nodes and dynamic symbols,
whose functions trap (ud2) and whose data objects are zero-filled: for tools/gpu-bundle.sh, which
carries a build to a machine without Debian's libraries and prunes the ones on code paths the
GPU check never takes (GDAL/DICOM/EXR image formats in OpenCV, FFmpeg's external codecs). Every
symbol the real library defines is defined, with its version, so the dynamic loader resolves
everything at load time (Debian links with BIND_NOW); a call into a stub stops the program with
SIGILL instead of doing something wrong. C++ symbols of vague linkage (weak or unique `_Z...`:
template instantiations, inline functions) are left out: their users carry their own copies, and
a stub's copy could be the one the loader binds everybody to.

    elf_stub.py REAL.so OUT.so [--return SYMBOL ...]

--return: these functions return 0 instead of trapping (a library's registration function that
another library calls while it initialises, e.g. GDALAllRegister from OpenCV's codec registry).
"""
import os
import re
import subprocess
import sys
import tempfile


def readelf(*args):
    return subprocess.run(["readelf", "-W", *args], check=True, capture_output=True,
                          text=True).stdout


def main(real, out, returning=()):
    with open(real, "rb") as f:
        if f.read(4) != b"\x7fELF":
            sys.exit("elf_stub: %s is not an ELF shared library" % real)
    soname = re.search(r"\(SONAME\)\s+Library soname: \[([^\]]+)\]", readelf("-d", real))
    soname = soname.group(1) if soname else os.path.basename(real)
    versions = []
    section = readelf("-V", real)
    if "Version definition section" in section:
        definitions = section.split("Version definition section", 1)[1]
        definitions = definitions.split("Version needs section", 1)[0]
        definitions = definitions.split("Version symbols section", 1)[0]
        for match in re.finditer(r"Flags: (\w+)\s+Index: \d+\s+Cnt: \d+\s+Name: (\S+)",
                                 definitions):
            if match.group(1) != "BASE":
                versions.append(match.group(2))
    asm = [".text"]
    by_version = {v: [] for v in versions}
    unversioned = []
    seen = set()
    for line in readelf("--dyn-syms", real).splitlines():
        fields = line.split()
        if len(fields) < 8 or not fields[0].endswith(":"):
            continue
        _, _, size, kind, bind, _, ndx, name = fields[:8]
        if ndx in ("UND", "ABS") or bind not in ("GLOBAL", "WEAK", "UNIQUE"):
            continue
        if bind in ("WEAK", "UNIQUE") and name.startswith("_Z"):
            # C++ vague linkage (template instantiations, inline functions, typeinfo): every
            # object that uses one has its own copy, and the dynamic loader binds all of them to
            # the first definition it finds, which could be this stub's trap (seen: a plugin's
            # std::set<std::string>::insert bound into a stubbed libgdal). Left out.
            continue
        default = "@@" in name
        symbol, _, version = name.replace("@@", "@").partition("@")
        if (symbol, version) in seen:
            continue
        seen.add((symbol, version))
        if version and version not in by_version:
            continue  # the base version (the soname itself)
        label = symbol if (default or not version) else "stub.%d" % len(seen)
        quoted = '"%s"' % label
        size = int(size, 0)
        if kind == "OBJECT" or kind == "TLS":
            section_name = ".tbss" if kind == "TLS" else ".bss"
            flags = '"awT",@nobits' if kind == "TLS" else '"aw",@nobits'
            asm += [".section %s,%s" % (section_name, flags), ".balign 16",
                    ".globl %s" % quoted, ".type %s,%s" % (quoted, "@tls_object" if kind == "TLS"
                                                          else "@object"),
                    ".size %s,%d" % (quoted, max(size, 1)), "%s:" % quoted,
                    ".zero %d" % max(size, 1), ".text"]
        else:
            body = ["xor %eax, %eax", "ret"] if symbol in returning else ["ud2"]
            asm += [".globl %s" % quoted, ".type %s,@function" % quoted, "%s:" % quoted] + body
        if bind == "WEAK":
            asm.append(".weak %s" % quoted)
        if version and not default:
            asm.append('.symver %s, "%s@%s"' % (quoted, symbol, version))
        elif version:
            by_version[version].append(symbol)
        else:
            unversioned.append(symbol)
    script = []
    for index, version in enumerate(versions):
        names = by_version[version] + (unversioned if index == 0 else [])
        listed = "global: %s" % "".join('"%s"; ' % n for n in names) if names else ""
        script.append("%s { %slocal: *; };" % (version, listed))
    with tempfile.TemporaryDirectory() as scratch:
        source = os.path.join(scratch, "stub.s")
        with open(source, "w") as f:
            f.write("\n".join(asm) + "\n")
        command = ["gcc", "-shared", "-nostdlib", "-o", out, source, "-Wl,-soname," + soname]
        if versions:
            vscript = os.path.join(scratch, "stub.map")
            with open(vscript, "w") as f:
                f.write("\n".join(script) + "\n")
            command.append("-Wl,--version-script=" + vscript)
        subprocess.run(command, check=True)


if __name__ == "__main__":
    if len(sys.argv) < 3 or (len(sys.argv) > 3 and sys.argv[3] != "--return"):
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], set(sys.argv[4:]))

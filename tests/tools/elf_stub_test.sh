#!/usr/bin/env bash
# tools/elf_stub.py (used by tools/gpu-bundle.sh): a stub of a shared library keeps its SONAME,
# version nodes and every dynamic symbol (functions, data objects, default and non-default
# versions, weak symbols) except C++ vague linkage (weak _Z symbols), so a program linked against
# the real library loads with the stub under BIND_NOW; a --return function returns 0, any other
# function traps (SIGILL).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() {
    echo "elf_stub_test: $*" >&2
    exit 1
}

cat > real.c << 'C'
int real_table[8] = {1, 2, 3, 4, 5, 6, 7, 8};
int real_register(void) { return 42; }
int real_compute(int x) { return x * 2; }
__attribute__((weak)) int real_weak(void) { return 7; }
int real_old(void) { return 1; }
int real_new(void) { return 2; }
/* C++ vague linkage (an inline function's or template's copy): the stub must not export it */
__attribute__((weak)) int vague(void) __asm__("_ZN4real5vagueEv");
__attribute__((weak)) int vague(void) { return 5; }
__asm__(".symver real_old, real_versioned@REAL_1.0");
__asm__(".symver real_new, real_versioned@@REAL_2.0");
C
cat > real.map << 'MAP'
REAL_1.0 { global: real_table; real_register; real_compute; real_weak; _ZN4real5vagueEv; local: *; };
REAL_2.0 { global: real_versioned; } REAL_1.0;
MAP
gcc -shared -fPIC -o libreal.so.3 real.c -Wl,-soname,libreal.so.3 -Wl,--version-script=real.map
ln -s libreal.so.3 libreal.so
cat > user.c << 'C'
#include <stdio.h>
#include <string.h>
extern int real_table[8];
int real_register(void);
int real_compute(int);
int real_versioned(void);
int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "register") == 0) return real_register();
    if (argc > 1 && strcmp(argv[1], "compute") == 0) return real_compute(3);
    printf("%d %d\n", real_table[0], real_versioned());
    return 0;
}
C
gcc -o user user.c -L. -lreal -Wl,-z,now -Wl,-rpath,'$ORIGIN/lib'
mkdir lib
cp libreal.so.3 lib/
[ "$(./user)" = "1 2" ] || fail "the real library does not work"

python3 "$here/tools/elf_stub.py" libreal.so.3 lib/libreal.so.3 --return real_register
symbols() { readelf -W --dyn-syms "$1" | awk '$7 != "UND" && NF >= 8 && $5 != "LOCAL" { print $4, $5, $8 }' | sort; }
symbols libreal.so.3 | grep -q ' _ZN4real5vagueEv@' || fail "the test library lacks its vague symbol"
diff <(symbols libreal.so.3 | grep -v ' WEAK _Z') <(symbols lib/libreal.so.3) ||
    fail "the stub's dynamic symbols (type, binding, name@version) differ from the real library's" \
        "(C++ vague linkage excepted)"
readelf -d lib/libreal.so.3 | grep -q 'Library soname: \[libreal.so.3\]' || fail "SONAME lost"
[ -z "$(readelf -d lib/libreal.so.3 | grep NEEDED)" ] || fail "the stub needs other libraries"

# Loads under BIND_NOW (every symbol resolved), data is zeroes, --return returns 0.
set +e
LD_BIND_NOW=1 ./user register
[ $? -eq 0 ] || fail "the stub did not load under BIND_NOW, or a --return function did not return 0"
bash -c 'LD_BIND_NOW=1 ./user compute; exit $?' 2> /dev/null
status=$?
set -e
[ $status -eq $((128 + 4)) ] || fail "a stubbed function did not trap with SIGILL (exit $status)"
# A library that is not an ELF file is refused with the reason.
echo "not a library" > bogus.so
if python3 "$here/tools/elf_stub.py" bogus.so out.so 2> err.txt; then
    fail "a non-ELF input was accepted"
fi
grep -q "bogus.so is not an ELF shared library" err.txt || fail "unclear error: $(cat err.txt)"
[ ! -e out.so ] || fail "an output was written for a bad input"
echo "elf_stub_test: passed"

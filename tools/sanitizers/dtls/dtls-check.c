/* Checks the environment scripts/sanitize.sh runs the suite in (docs/reliability.md).
 *
 * GCC 12's LeakSanitizer (and clang 14's) records each dynamic TLS block it sees through
 * __tls_get_addr and guesses its bounds: when the block starts at 16 mod 4096 it takes the 16
 * bytes before it for glibc 2.19's block header. glibc 2.36 allocates dynamic TLS with malloc, so
 * those bytes are AddressSanitizer's own chunk header, and the leak check at exit scans a range
 * made of them: "Tracer caught signal 11" in ScanRangeForPointers. Whether a block lands there
 * depends on the heap's history, so a test failed this way only on some machines. This program
 * puts a dynamic TLS block there on purpose and keeps the only pointer to a heap block in it:
 * with intercept_tls_get_addr=0 the check must run to the end and report nothing (the block stays
 * reachable through glibc's DTV, which the thread's static TLS points to).
 *
 *   dtls-check LIBRARY          exit 0 and no report: the environment is sound
 *   dtls-check LIBRARY --leak   also drops a block: the leak check must report it (it runs) */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum
{
    kWalk = 20000
};
static void *walked[kWalk]; /* reachable: a global */

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "--leak") != 0)) {
        fprintf(stderr, "usage: dtls-check LIBRARY [--leak]\n");
        return 2;
    }
    void *library = dlopen(argv[1], RTLD_NOW);
    if (!library) {
        fprintf(stderr, "dtls-check: %s\n", dlerror());
        return 2;
    }
    char **(*slot)(void) = (char **(*)(void))dlsym(library, "kosmos_dtls_slot");
    if (!slot) {
        fprintf(stderr, "dtls-check: %s\n", dlerror());
        return 2;
    }
    /* Chunks of this size class follow each other 48 bytes apart: stop when the next one, the
     * block glibc allocates for the library's TLS, starts at 16 mod 4096. */
    int placed = 0;
    for (int i = 0; i < kWalk && !placed; ++i) {
        walked[i] = malloc(24);
        placed = (((uintptr_t)walked[i] + 48) & 4095) == 16;
    }
    char **held = slot();
    *held = malloc(1000); /* only referenced from the dynamic TLS block */
    if (argc == 3) {
        void *volatile dropped = malloc(100);
        dropped = NULL;
        (void)dropped;
    }
    printf("dtls-check: dynamic TLS block at %p (%lu mod 4096)%s\n", (void *)held,
           (unsigned long)((uintptr_t)held & 4095), placed ? "" : ", not placed");
    return 0;
}

/* A library with a dynamic TLS block (see dtls-check.c). */
__thread char *kosmos_dtls_slot_value;
__thread char kosmos_dtls_padding[16];

char **kosmos_dtls_slot(void)
{
    kosmos_dtls_padding[0] = 1;
    return &kosmos_dtls_slot_value;
}

/* The baseline of tests/bench/milter_load.py --baseline: a libmilter
 * filter that asks Postfix for what leakhound's milter asks for (the
 * connection, the envelope, every header and the whole body, with the
 * same modification flags) and accepts each message at its end. What
 * Postfix achieves with it is the ceiling any content filter can
 * approach on the machine.
 *   cc -O2 -o accept_milter accept_milter.c -lmilter
 *   accept_milter inet:PORT@127.0.0.1
 */
#include <libmilter/mfapi.h>
#include <stdio.h>

static sfsistat on_connect(SMFICTX *ctx, char *host, _SOCK_ADDR *addr) {
  (void)ctx, (void)host, (void)addr;
  return SMFIS_CONTINUE;
}

static sfsistat on_address(SMFICTX *ctx, char **argv) {
  (void)ctx, (void)argv;
  return SMFIS_CONTINUE;
}

static sfsistat on_header(SMFICTX *ctx, char *name, char *value) {
  (void)ctx, (void)name, (void)value;
  return SMFIS_CONTINUE;
}

static sfsistat on_context(SMFICTX *ctx) {
  (void)ctx;
  return SMFIS_CONTINUE;
}

static sfsistat on_body(SMFICTX *ctx, unsigned char *chunk, size_t length) {
  (void)ctx, (void)chunk, (void)length;
  return SMFIS_CONTINUE;
}

static sfsistat on_eom(SMFICTX *ctx) {
  (void)ctx;
  return SMFIS_ACCEPT;
}

int main(int argc, char **argv) {
  struct smfiDesc desc = {
      .xxfi_name = "accept_milter",
      .xxfi_version = SMFI_VERSION,
      .xxfi_flags = SMFIF_ADDHDRS | SMFIF_CHGHDRS | SMFIF_QUARANTINE |
                    SMFIF_ADDRCPT | SMFIF_DELRCPT,
      .xxfi_connect = on_connect,
      .xxfi_envfrom = on_address,
      .xxfi_envrcpt = on_address,
      .xxfi_header = on_header,
      .xxfi_eoh = on_context,
      .xxfi_body = on_body,
      .xxfi_eom = on_eom,
      .xxfi_abort = on_context,
      .xxfi_close = on_context};
  if (argc != 2 || smfi_setconn(argv[1]) == MI_FAILURE ||
      smfi_register(desc) == MI_FAILURE || smfi_opensocket(1) == MI_FAILURE) {
    fprintf(stderr, "usage: accept_milter inet:PORT@127.0.0.1\n");
    return 2;
  }
  return smfi_main() == MI_SUCCESS ? 0 : 1;
}

/*
 * A test-only stand-in for Windows' bcryptprimitives.dll, built by
 * scripts/build-windows and put beside the .exe files it runs under Wine.
 *
 * Rust's standard library takes its random numbers from ProcessPrng in
 * bcryptprimitives.dll; Debian's Wine 8 has no such DLL, so every Rust
 * program (HashMap's seeds alone) aborts at start. This one forwards
 * ProcessPrng to RtlGenRandom (advapi32's SystemFunction036), which Wine has.
 *
 * Never shipped: real Windows (10 and later) has the DLL, and the installer
 * must not carry this file.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

/* ProcessPrng never fails on Windows; RtlGenRandom takes a ULONG length, so
 * a larger request is filled in pieces. */
BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG piece = length > 0x10000000 ? 0x10000000 : (ULONG)length;
        if (!SystemFunction036(data, piece))
            return FALSE;
        data += piece;
        length -= piece;
    }
    return TRUE;
}

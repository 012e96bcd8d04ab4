/* What a kernel refusal of a cgroupfs write means, in words a requester can act on. */
#pragma once

/* A short reason for errnum refusing a write of file, or "" when strerror says all there is. */
const char *cgfs_refusal_hint(const char *file, int errnum);

/*
 * First include of every hpa source file: feature macros, standard types and
 * the few attributes the code base uses.
 */
#ifndef HPA_COMPAT_H
#define HPA_COMPAT_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HPA_NORETURN __attribute__((noreturn))
#define HPA_NOINLINE __attribute__((noinline))
#define HPA_ALWAYS_INLINE inline __attribute__((always_inline))
#define HPA_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#define HPA_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif

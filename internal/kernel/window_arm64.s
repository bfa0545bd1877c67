//go:build gc && !purego

#include "textflag.h"
#include "blocked_arm64.h"

// NEON batch kernel of the windowed blocked filter (hand-written, after
// blocked_arm64.s, whose mask construction (blocked_arm64.h) and table it
// shares; see window_arm64.go and the layout in internal/kernel/window.go).
// For every key hash h:
//
//   group = blocks + ((h &^ 0xffffffff) umulh nb) << SHIFT
//
// the address of the key's group, SHIFT = log2 of a group's bytes (6 for
// ngen = 2 and 4, log2(16*ngen) above), then the mask (MASK8, or MASK16
// for k > 8: the table's ones are zero for probes j >= k) in V7..V10,
// folded onto a lane:
//
//   ngen = 2: 256-bit lanes, two a line, generation j's at group + 32*j;
//             the lane mask is V7|V9 (words 0-1), V8|V10 (words 2-3).
//   ngen >= 4: 128-bit lanes, four a line, generation j's at group + 16*j
//             (line j/4, lane j%4); the lane mask is V7|V8|V9|V10, one Q.
//
// Then a loop over the set bits of live (RBIT, CLZ) tests each generation's
// lane: miss = mask &^ lane, its two halves ORed (EXT, ORR), compared with
// zero (CMEQ: all ones where nothing is missing) and ORed into V15, with no
// branch on the lanes' contents; the answer is V15's low bit. The lines of
// the key DIST keys ahead that hold a live lane are prefetched (PRFM): one
// line for ngen <= 4, the lines l with a live bit in live's nibble l above.
// There is a copy of the loops for each of ngen = 2 / ngen >= 4 and
// k <= 8 / k > 8, chosen once per call.

// Prefetch distance in keys (asm/blocked/window.go's winDist).
#define DIST 16

#define BLOCKS R0
#define NB R1
#define SHIFT R2
#define LIVE R3
#define PLIVE R4
#define TAB R5
#define HP R6
#define N R7
#define OUT R8
#define COUNT R9
#define LEFT R10
#define H R11
#define ADDR R12
#define T R13
#define T2 R14
#define PH R15
#define M R16
#define J R17
#define NGEN R19
#define K R20

// GROUP(h, dst): dst = the address of h's group.
#define GROUP(h, dst) \
	AND   $0xffffffff00000000, h, dst; \
	UMULH NB, dst, dst;                \
	LSL   SHIFT, dst, dst;             \
	ADD   BLOCKS, dst, dst

// NEXTBIT: J = the index of the lowest set bit of M.
#define NEXTBIT \
	RBIT M, J; \
	CLZ  J, J

// CLEARLOW: clear the lowest set bit of M.
#define CLEARLOW \
	SUB $1, M, T2; \
	AND T2, M, M

// PREFETCHLINE: prefetch the line of ADDR's group that bit J of PLIVE
// names (J = 4*line; a line is 64 bytes).
#define PREFETCHLINE \
	ADD  J<<4, ADDR, T; \
	PRFM (T), PLDL1KEEP

// FOLD2: the lane mask of ngen = 2 into V7 (words 0-1) and V8 (words 2-3).
#define FOLD2 \
	VORR V9.B16, V7.B16, V7.B16; \
	VORR V10.B16, V8.B16, V8.B16

// FOLD4: the lane mask of ngen >= 4 into V7.
#define FOLD4 \
	VORR V8.B16, V7.B16, V7.B16;  \
	VORR V10.B16, V9.B16, V9.B16; \
	VORR V9.B16, V7.B16, V7.B16

// LANEHIT: V15 |= all ones if the miss bits in V11 are all zero (V29 is
// zero; V12 is scratch).
#define LANEHIT \
	VEXT  $8, V11.B16, V11.B16, V12.B16; \
	VORR  V12.B16, V11.B16, V11.B16;     \
	VCMEQ V29.D2, V11.D2, V11.D2;        \
	VORR  V11.B16, V15.B16, V15.B16

// TESTGEN2: test generation J's 256-bit lane (ngen = 2).
#define TESTGEN2 \
	ADD  J<<5, ADDR, T;          \
	VLD1 (T), [V11.D2, V12.D2];  \
	VBIC_B16(11, 7, 11);         \
	VBIC_B16(12, 8, 12);         \
	VORR V12.B16, V11.B16, V11.B16; \
	LANEHIT

// TESTGEN4: test generation J's 128-bit lane (ngen >= 4).
#define TESTGEN4 \
	ADD  J<<4, ADDR, T; \
	VLD1 (T), [V11.D2]; \
	VBIC_B16(11, 7, 11); \
	LANEHIT

// KEYSTART(MASK, FOLD): load the hash at HP (advancing HP), its group and
// lane mask; M = live, V15 = 0.
#define KEYSTART(MASK, FOLD) \
	MOVD.P 8(HP), H;                 \
	GROUP(H, ADDR);                  \
	MASK;                            \
	FOLD;                            \
	MOVD   LIVE, M;                  \
	VEOR   V15.B16, V15.B16, V15.B16

// KEYEND: store and count the answer (V15's low bit).
#define KEYEND \
	VMOV   V15.D[0], T;  \
	AND    $1, T, T;     \
	MOVB.P T, 1(OUT);    \
	ADD    T, COUNT, COUNT

// func blockedContainsGensNEON(blocks *uint64, nb uint64, ngen int, live uint64, k int, tab *uint32, hs *uint64, n int, out *bool) int
TEXT ·blockedContainsGensNEON(SB), NOSPLIT|NOFRAME, $0-80
	MOVD blocks+0(FP), BLOCKS
	MOVD nb+8(FP), NB
	MOVD ngen+16(FP), NGEN
	MOVD live+24(FP), LIVE
	MOVD k+32(FP), K
	MOVD tab+40(FP), TAB
	MOVD hs+48(FP), HP
	MOVD n+56(FP), N
	MOVD out+64(FP), OUT
	MOVD $0, COUNT
	VLD1   (TAB), [V16.S4, V17.S4, V18.S4, V19.S4]
	ADD    $64, TAB, T
	VLD1.P 64(T), [V20.D2, V21.D2, V22.D2, V23.D2]
	VLD1   (T), [V24.D2, V25.D2, V26.D2, V27.D2]
	VEOR   V29.B16, V29.B16, V29.B16

	// SHIFT = log2 of a group's bytes; PLIVE = bit 4*l for every line l
	// of a group that holds a live lane.
	CMP  $2, NGEN
	BNE  setup4
	MOVD $6, SHIFT
	MOVD $1, PLIVE
	B    setup_done

setup4:
	// log2(16*ngen) = 67 - clz(ngen) (ngen a power of two); = 6 at 4.
	CLZ  NGEN, T
	MOVD $67, SHIFT
	SUB  T, SHIFT, SHIFT
	ORR  LIVE>>1, LIVE, T
	ORR  T>>2, T, T
	AND  $0x1111111111111111, T, PLIVE

setup_done:
	// Prefetch the live lines of the first min(N, DIST) keys.
	MOVD HP, PH
	CMP  $DIST, N
	MOVD $DIST, LEFT
	CSEL LT, N, LEFT, LEFT
	CBZ  LEFT, prologue_done

prologue:
	MOVD.P 8(PH), T
	GROUP(T, ADDR)
	MOVD   PLIVE, M

prologue_lines:
	NEXTBIT
	PREFETCHLINE
	CLEARLOW
	CBNZ M, prologue_lines
	SUBS $1, LEFT
	BNE  prologue

prologue_done:
	CMP $2, NGEN
	BNE gens4
	CMP $8, K
	BGT gens2k16

	// The first N-DIST keys, prefetching the key DIST ahead.
	SUBS $DIST, N, LEFT
	BLE  gens2k8_tail

gens2k8_main:
	MOVD (DIST*8)(HP), T
	GROUP(T, ADDR)
	PRFM (ADDR), PLDL1KEEP
	KEYSTART(MASK8, FOLD2)

gens2k8_main_bits:
	NEXTBIT
	TESTGEN2
	CLEARLOW
	CBNZ M, gens2k8_main_bits
	KEYEND
	SUBS $1, LEFT
	BNE  gens2k8_main

gens2k8_tail:
	// The last min(N, DIST) keys, already prefetched.
	CMP  $DIST, N
	MOVD $DIST, LEFT
	CSEL LT, N, LEFT, LEFT
	CBZ  LEFT, done

gens2k8_tail_loop:
	KEYSTART(MASK8, FOLD2)

gens2k8_tail_bits:
	NEXTBIT
	TESTGEN2
	CLEARLOW
	CBNZ M, gens2k8_tail_bits
	KEYEND
	SUBS $1, LEFT
	BNE  gens2k8_tail_loop
	B    done

gens2k16:
	// The first N-DIST keys, prefetching the key DIST ahead.
	SUBS $DIST, N, LEFT
	BLE  gens2k16_tail

gens2k16_main:
	MOVD (DIST*8)(HP), T
	GROUP(T, ADDR)
	PRFM (ADDR), PLDL1KEEP
	KEYSTART(MASK16, FOLD2)

gens2k16_main_bits:
	NEXTBIT
	TESTGEN2
	CLEARLOW
	CBNZ M, gens2k16_main_bits
	KEYEND
	SUBS $1, LEFT
	BNE  gens2k16_main

gens2k16_tail:
	// The last min(N, DIST) keys, already prefetched.
	CMP  $DIST, N
	MOVD $DIST, LEFT
	CSEL LT, N, LEFT, LEFT
	CBZ  LEFT, done

gens2k16_tail_loop:
	KEYSTART(MASK16, FOLD2)

gens2k16_tail_bits:
	NEXTBIT
	TESTGEN2
	CLEARLOW
	CBNZ M, gens2k16_tail_bits
	KEYEND
	SUBS $1, LEFT
	BNE  gens2k16_tail_loop
	B    done

gens4:
	CMP $8, K
	BGT gens4k16

	// The first N-DIST keys, prefetching the key DIST ahead.
	SUBS $DIST, N, LEFT
	BLE  gens4k8_tail

gens4k8_main:
	MOVD (DIST*8)(HP), T
	GROUP(T, ADDR)
	MOVD PLIVE, M

gens4k8_main_lines:
	NEXTBIT
	PREFETCHLINE
	CLEARLOW
	CBNZ M, gens4k8_main_lines
	KEYSTART(MASK8, FOLD4)

gens4k8_main_bits:
	NEXTBIT
	TESTGEN4
	CLEARLOW
	CBNZ M, gens4k8_main_bits
	KEYEND
	SUBS $1, LEFT
	BNE  gens4k8_main

gens4k8_tail:
	// The last min(N, DIST) keys, already prefetched.
	CMP  $DIST, N
	MOVD $DIST, LEFT
	CSEL LT, N, LEFT, LEFT
	CBZ  LEFT, done

gens4k8_tail_loop:
	KEYSTART(MASK8, FOLD4)

gens4k8_tail_bits:
	NEXTBIT
	TESTGEN4
	CLEARLOW
	CBNZ M, gens4k8_tail_bits
	KEYEND
	SUBS $1, LEFT
	BNE  gens4k8_tail_loop
	B    done

gens4k16:
	// The first N-DIST keys, prefetching the key DIST ahead.
	SUBS $DIST, N, LEFT
	BLE  gens4k16_tail

gens4k16_main:
	MOVD (DIST*8)(HP), T
	GROUP(T, ADDR)
	MOVD PLIVE, M

gens4k16_main_lines:
	NEXTBIT
	PREFETCHLINE
	CLEARLOW
	CBNZ M, gens4k16_main_lines
	KEYSTART(MASK16, FOLD4)

gens4k16_main_bits:
	NEXTBIT
	TESTGEN4
	CLEARLOW
	CBNZ M, gens4k16_main_bits
	KEYEND
	SUBS $1, LEFT
	BNE  gens4k16_main

gens4k16_tail:
	// The last min(N, DIST) keys, already prefetched.
	CMP  $DIST, N
	MOVD $DIST, LEFT
	CSEL LT, N, LEFT, LEFT
	CBZ  LEFT, done

gens4k16_tail_loop:
	KEYSTART(MASK16, FOLD4)

gens4k16_tail_bits:
	NEXTBIT
	TESTGEN4
	CLEARLOW
	CBNZ M, gens4k16_tail_bits
	KEYEND
	SUBS $1, LEFT
	BNE  gens4k16_tail_loop

done:
	MOVD COUNT, ret+72(FP)
	RET

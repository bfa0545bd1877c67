//go:build gc && !purego

#include "textflag.h"
#include "blocked_arm64.h"

// NEON batch kernel of the windowed blocked filter (hand-written, after
// blocked_arm64.s, whose mask construction (blocked_arm64.h) and table it
// shares; see
// window_arm64.go). For every key hash h:
//
//   base = blocks + ((h &^ 0xffffffff) umulh nb) * (ngen*64)
//
// the address of the key's block in generation 0 (generation j's is
// base + 64*j, internal/kernel/window.go), then the mask of both probe
// rounds (the table's ones are zero for probes j >= k, so one code path
// serves every k), then a loop over the set bits of live (RBIT, CLZ) that
// tests each generation's block (mask &^ block == 0) and ORs the answer,
// with no branch on the block's contents. The line of every live
// generation of the key DIST keys ahead is prefetched (PRFM), as the amd64
// kernels do.

// Prefetch distance in keys (asm/blocked/window.go's winDist).
#define DIST 16

#define BLOCKS R0
#define NB R1
#define STRIDE R2
#define LIVE R3
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
#define ACC R19

// BASE(h, dst): dst = the address of h's block in generation 0.
#define BASE(h, dst) \
	AND   $0xffffffff00000000, h, dst; \
	UMULH NB, dst, dst;                \
	MUL   STRIDE, dst, dst;            \
	ADD   BLOCKS, dst, dst

// NEXTGEN: J = the byte offset 64*j of the lowest set bit j of M.
#define NEXTGEN \
	RBIT M, J; \
	CLZ  J, J; \
	LSL  $6, J, J

// CLEARLOW: clear the lowest set bit of M.
#define CLEARLOW \
	SUB $1, M, T2; \
	AND T2, M, M

// TESTGEN: ACC |= (the block at ADDR+J holds every bit of the mask).
#define TESTGEN \
	ADD  J, ADDR, T;                                \
	VLD1 (T), [V11.D2, V12.D2, V13.D2, V14.D2];     \
	VBIC_B16(11, 7, 11);                            \
	VBIC_B16(12, 8, 12);                            \
	VBIC_B16(13, 9, 13);                            \
	VBIC_B16(14, 10, 14);                           \
	VORR V12.B16, V11.B16, V11.B16;                 \
	VORR V14.B16, V13.B16, V13.B16;                 \
	VORR V13.B16, V11.B16, V11.B16;                 \
	VMOV V11.D[0], T;                               \
	VMOV V11.D[1], T2;                              \
	ORR  T2, T, T;                                  \
	CMP  $0, T;                                     \
	CSET EQ, T;                                     \
	ORR  T, ACC, ACC

// KEYSTART: load the hash at HP (advancing HP), its base and mask.
#define KEYSTART \
	MOVD.P 8(HP), H;  \
	BASE(H, ADDR);    \
	MASK16;           \
	MOVD   LIVE, M;   \
	MOVD   $0, ACC

// KEYEND: store and count the answer.
#define KEYEND \
	MOVB.P ACC, 1(OUT); \
	ADD    ACC, COUNT, COUNT

// func blockedContainsGensNEON(blocks *uint64, nb uint64, ngen int, live uint64, k int, tab *uint32, hs *uint64, n int, out *bool) int
TEXT ·blockedContainsGensNEON(SB), NOSPLIT|NOFRAME, $0-80
	MOVD blocks+0(FP), BLOCKS
	MOVD nb+8(FP), NB
	MOVD ngen+16(FP), STRIDE
	LSL  $6, STRIDE, STRIDE
	MOVD live+24(FP), LIVE
	MOVD tab+40(FP), TAB
	MOVD hs+48(FP), HP
	MOVD n+56(FP), N
	MOVD out+64(FP), OUT
	MOVD $0, COUNT
	VLD1   (TAB), [V16.S4, V17.S4, V18.S4, V19.S4]
	ADD    $64, TAB, T
	VLD1.P 64(T), [V20.D2, V21.D2, V22.D2, V23.D2]
	VLD1   (T), [V24.D2, V25.D2, V26.D2, V27.D2]

	// Prefetch the live lines of the first min(N, DIST) keys.
	MOVD HP, PH
	CMP  $DIST, N
	MOVD $DIST, LEFT
	CSEL LT, N, LEFT, LEFT
	CBZ  LEFT, prologue_done

prologue:
	MOVD.P 8(PH), T
	BASE(T, ADDR)
	MOVD   LIVE, M

prologue_bits:
	NEXTGEN
	ADD  J, ADDR, T
	PRFM (T), PLDL1KEEP
	CLEARLOW
	CBNZ M, prologue_bits
	SUBS $1, LEFT
	BNE  prologue

prologue_done:
	// The first N-DIST keys, prefetching the key DIST ahead.
	SUBS $DIST, N, LEFT
	BLE  tail

main:
	MOVD (DIST*8)(HP), T
	BASE(T, ADDR)
	MOVD LIVE, M

main_prefetch:
	NEXTGEN
	ADD  J, ADDR, T
	PRFM (T), PLDL1KEEP
	CLEARLOW
	CBNZ M, main_prefetch
	KEYSTART

main_bits:
	NEXTGEN
	TESTGEN
	CLEARLOW
	CBNZ M, main_bits
	KEYEND
	SUBS $1, LEFT
	BNE  main

tail:
	// The last min(N, DIST) keys, already prefetched.
	CMP  $DIST, N
	MOVD $DIST, LEFT
	CSEL LT, N, LEFT, LEFT
	CBZ  LEFT, done

tail_loop:
	KEYSTART

tail_bits:
	NEXTGEN
	TESTGEN
	CLEARLOW
	CBNZ M, tail_bits
	KEYEND
	SUBS $1, LEFT
	BNE  tail_loop

done:
	MOVD COUNT, ret+72(FP)
	RET

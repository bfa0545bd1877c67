//go:build gc && !purego

#include "textflag.h"

// Registers.
#define WORDS R0 // base of the array
#define LINES R1 // number of 64-byte lines
#define HS R2    // base of hs
#define N R3     // len(hs)
#define SUM R4
#define I R5
#define LIMIT R6 // the last index (exclusive) of the loop at hand
#define DIST R11 // prefetch distance in keys
#define AHEAD R12 // &hs[DIST]

// LINE(reg) turns a hash in reg into the byte offset of its line:
// ((h >> 32) * LINES) >> 32, times 64.
#define LINE(reg) \
	LSR $32, reg, reg; \
	MUL LINES, reg, reg; \
	LSR $32, reg, reg; \
	LSL $6, reg, reg

// func probePrefetch(words *uint64, lines uint64, hs []uint64, dist int) uint64
TEXT ·probePrefetch(SB), NOSPLIT, $0-56
	MOVD words+0(FP), WORDS
	MOVD lines+8(FP), LINES
	MOVD hs_base+16(FP), HS
	MOVD hs_len+24(FP), N
	MOVD dist+40(FP), DIST
	MOVD $0, SUM
	MOVD $0, I

	// Prefetch the lines of the first min(DIST, N) keys, as a batch
	// kernel's prologue does, so that every key's line is prefetched
	// DIST keys before it is read.
	MOVD DIST, LIMIT
	CMP  N, LIMIT
	BLE  head
	MOVD N, LIMIT

head:
	CMP  LIMIT, I
	BGE  body
	MOVD (HS)(I<<3), R8
	LINE(R8)
	ADD  WORDS, R8, R8
	PRFM (R8), PLDL1KEEP
	ADD  $1, I, I
	B    head

body:
	MOVD $0, I
	SUB  DIST, N, LIMIT
	ADD  DIST<<3, HS, AHEAD

ahead:
	CMP  LIMIT, I
	BGE  tail
	MOVD (AHEAD)(I<<3), R8
	LINE(R8)
	ADD  WORDS, R8, R8
	PRFM (R8), PLDL1KEEP
	MOVD (HS)(I<<3), R9
	LINE(R9)
	MOVD (WORDS)(R9), R10
	ADD  R10, SUM, SUM
	ADD  $1, I, I
	B    ahead

tail:
	CMP  N, I
	BGE  done
	MOVD (HS)(I<<3), R9
	LINE(R9)
	MOVD (WORDS)(R9), R10
	ADD  R10, SUM, SUM
	ADD  $1, I, I
	B    tail

done:
	MOVD SUM, ret+48(FP)
	RET

// func callFloor(t *callTable, h uint64) bool
// It returns false and does nothing else: see ProbeCall.
TEXT ·callFloor(SB), NOSPLIT, $0-17
	MOVB ZR, ret+16(FP)
	RET

//go:build gc && !purego

#include "textflag.h"

// Registers.
#define WORDS DI  // base of the array
#define LINES SI  // number of 64-byte lines
#define HS R8     // base of hs
#define N R9      // len(hs)
#define SUM R10
#define I CX
#define LIMIT R11 // the last index (exclusive) of the loop at hand
#define DIST R12  // prefetch distance in keys
#define AHEAD R13 // &hs[DIST]

// LINE(reg) turns a hash in reg into the byte offset of its line:
// ((h >> 32) * LINES) >> 32, times 64.
#define LINE(reg) \
	SHRQ $32, reg; \
	IMULQ LINES, reg; \
	SHRQ $32, reg; \
	SHLQ $6, reg

// func probePrefetch(words *uint64, lines uint64, hs []uint64, dist int) uint64
TEXT ·probePrefetch(SB), NOSPLIT, $0-56
	MOVQ words+0(FP), WORDS
	MOVQ lines+8(FP), LINES
	MOVQ hs_base+16(FP), HS
	MOVQ hs_len+24(FP), N
	MOVQ dist+40(FP), DIST
	XORQ SUM, SUM
	XORQ I, I

	// Prefetch the lines of the first min(DIST, N) keys, as a batch
	// kernel's prologue does, so that every key's line is prefetched
	// DIST keys before it is read.
	MOVQ DIST, LIMIT
	CMPQ LIMIT, N
	JLE  head
	MOVQ N, LIMIT

head:
	CMPQ I, LIMIT
	JGE  body
	MOVQ (HS)(I*8), AX
	LINE(AX)
	PREFETCHT0 (WORDS)(AX*1)
	INCQ I
	JMP  head

body:
	XORQ I, I
	MOVQ N, LIMIT
	SUBQ DIST, LIMIT
	LEAQ (HS)(DIST*8), AHEAD

ahead:
	CMPQ I, LIMIT
	JGE  tail
	MOVQ (AHEAD)(I*8), AX
	LINE(AX)
	PREFETCHT0 (WORDS)(AX*1)
	MOVQ (HS)(I*8), BX
	LINE(BX)
	ADDQ (WORDS)(BX*1), SUM
	INCQ I
	JMP  ahead

tail:
	CMPQ I, N
	JGE  done
	MOVQ (HS)(I*8), BX
	LINE(BX)
	ADDQ (WORDS)(BX*1), SUM
	INCQ I
	JMP  tail

done:
	MOVQ SUM, ret+48(FP)
	RET

// func callFloor(t *callTable, h uint64) bool
// It returns false and does nothing else: see ProbeCall.
TEXT ·callFloor(SB), NOSPLIT, $0-17
	MOVB $0, ret+16(FP)
	RET

//go:build gc && !purego

#include "textflag.h"

// Prefetch distance in keys; keep equal to PrefetchDistance in probe.go.
#define DIST 16

// Registers.
#define WORDS DI  // base of the array
#define LINES SI  // number of 64-byte lines
#define HS R8     // base of hs
#define N R9      // len(hs)
#define SUM R10
#define I CX
#define LIMIT R11 // N - DIST: last index with a key DIST ahead

// LINE(reg) turns a hash in reg into the byte offset of its line:
// ((h >> 32) * LINES) >> 32, times 64.
#define LINE(reg) \
	SHRQ $32, reg; \
	IMULQ LINES, reg; \
	SHRQ $32, reg; \
	SHLQ $6, reg

// func probePrefetch(words *uint64, lines uint64, hs []uint64) uint64
TEXT ·probePrefetch(SB), NOSPLIT, $0-48
	MOVQ words+0(FP), WORDS
	MOVQ lines+8(FP), LINES
	MOVQ hs_base+16(FP), HS
	MOVQ hs_len+24(FP), N
	XORQ SUM, SUM
	XORQ I, I
	MOVQ N, LIMIT
	SUBQ $DIST, LIMIT

ahead:
	CMPQ I, LIMIT
	JGE  tail
	MOVQ (DIST*8)(HS)(I*8), AX
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
	MOVQ SUM, ret+40(FP)
	RET

// func callFloor(t *callTable, h uint64) bool
// It returns false and does nothing else: see ProbeCall.
TEXT ·callFloor(SB), NOSPLIT, $0-17
	MOVB $0, ret+16(FP)
	RET

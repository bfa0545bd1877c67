// Shared by the arm64 blocked-filter kernels (blocked_arm64.s,
// addnew_arm64.s, window_arm64.s): the vector encodings Go's assembler
// lacks and the probe-mask macros. The including file defines the
// registers the macros name (H, HP, T, BLOCKS, NBLOCKS) and DIST.

// Go's assembler has no vector MUL, USHL or BIC: these macros encode them
// from register numbers (0..31). The instruction is in each comment.

// MUL Vd.4S, Vn.4S, Vm.4S
#define VMUL_S4(m, n, d) WORD $(0x4EA09C00 | ((m)<<16) | ((n)<<5) | (d))
// USHL Vd.2D, Vn.2D, Vm.2D   (Vd = Vn << low byte of each lane of Vm)
#define VUSHL_D2(m, n, d) WORD $(0x6EE04400 | ((m)<<16) | ((n)<<5) | (d))
// BIC Vd.16B, Vn.16B, Vm.16B (Vd = Vn &^ Vm)
#define VBIC_B16(m, n, d) WORD $(0x4E601C00 | ((m)<<16) | ((n)<<5) | (d))

// BLOCKADDR(h, dst): dst = address of the block of hash h.
#define BLOCKADDR(h, dst) \
	AND   $0xffffffff00000000, h, dst; \
	UMULH NBLOCKS, dst, dst;           \
	ADD   dst<<6, BLOCKS, dst

// PREFETCH: prefetch the block of the hash DIST keys after HP.
#define PREFETCH \
	MOVD (DIST*8)(HP), T; \
	BLOCKADDR(T, T);      \
	PRFM (T), PLDL1KEEP

// MASK8: the probe bits of H with salts V16/V17 and ones V20..V23 into
// V7 (words 0-1), V8 (2-3), V9 (4-5), V10 (6-7).
#define MASK8 \
	VDUP  H, V0.S4;          \
	VMUL_S4(16, 0, 1);       \
	VMUL_S4(17, 0, 2);       \
	VUSHR $26, V1.S4, V3.S4; \
	VUSHR $58, V1.D2, V4.D2; \
	VUSHR $26, V2.S4, V5.S4; \
	VUSHR $58, V2.D2, V6.D2; \
	VUSHL_D2(3, 20, 7);      \
	VUSHL_D2(4, 21, 8);      \
	VUSHL_D2(5, 22, 9);      \
	VUSHL_D2(6, 23, 10)

// MASK16: MASK8 plus the second round (salts V18/V19, ones V24..V27).
#define MASK16 \
	MASK8;                        \
	VMUL_S4(18, 0, 1);            \
	VMUL_S4(19, 0, 2);            \
	VUSHR $26, V1.S4, V3.S4;      \
	VUSHR $58, V1.D2, V4.D2;      \
	VUSHR $26, V2.S4, V5.S4;      \
	VUSHR $58, V2.D2, V6.D2;      \
	VUSHL_D2(3, 24, 3);           \
	VUSHL_D2(4, 25, 4);           \
	VUSHL_D2(5, 26, 5);           \
	VUSHL_D2(6, 27, 6);           \
	VORR  V3.B16, V7.B16, V7.B16; \
	VORR  V4.B16, V8.B16, V8.B16; \
	VORR  V5.B16, V9.B16, V9.B16; \
	VORR  V6.B16, V10.B16, V10.B16

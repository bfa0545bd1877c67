// GuavaVectors writes golden vectors for sift's classic package, computed by
// the real com.google.common.hash.BloomFilter, as JSON on standard output.
// Run it through gen.sh; the Go tests read the committed vectors.json, so
// neither Java nor Guava is needed to test sift.
//
// Every random choice comes from a fixed-seed SplitMix64, so a rerun with the
// same Guava produces the same file byte for byte.

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnel;
import com.google.common.hash.Funnels;
import com.google.common.hash.HashCode;
import com.google.common.hash.Hashing;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

public final class GuavaVectors {
    // ---- deterministic randomness --------------------------------------------

    // SplitMix64.
    static final class SplitMix {
        private long state;

        SplitMix(long seed) {
            state = seed;
        }

        long next() {
            long z = (state += 0x9E3779B97F4A7C15L);
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            return z ^ (z >>> 31);
        }

        int nextInt(int bound) {
            return (int) Long.remainderUnsigned(next(), bound);
        }
    }

    private static final SplitMix rng = new SplitMix(0x5EED5EED5EED5EEDL);

    // A second stream for the sections added after the first release of
    // this file (the chars funnel, UTF-8 decoding, StrictMath.pow, the
    // statistics sweep), so that the older sections keep their inputs.
    private static final SplitMix rng2 = new SplitMix(0x0C4A25C4A25C4A25L);

    private static long next() {
        return rng.next();
    }

    private static int nextInt(int bound) {
        return rng.nextInt(bound);
    }

    private static long next2() {
        return rng2.next();
    }

    private static int nextInt2(int bound) {
        return rng2.nextInt(bound);
    }

    // ---- JSON output ----------------------------------------------------------

    private static final StringBuilder out = new StringBuilder();

    private static String hex(byte[] b) {
        StringBuilder s = new StringBuilder(b.length * 2);
        for (byte x : b) {
            s.append(Character.forDigit((x >> 4) & 0xF, 16));
            s.append(Character.forDigit(x & 0xF, 16));
        }
        return s.toString();
    }

    private static String hexLong(long v) {
        return String.format("%016x", v);
    }

    // quote writes s as a JSON string; everything outside printable ASCII is
    // escaped as \\uXXXX per UTF-16 unit, so the file itself is pure ASCII.
    private static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20 || c > 0x7e) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }

    // units spells a Java String as its UTF-16 code units, four hex digits
    // each (most significant first), so that unpaired surrogates survive
    // (JSON parsers replace them).
    private static String units(String s) {
        StringBuilder b = new StringBuilder(4 * s.length());
        for (int i = 0; i < s.length(); i++) {
            b.append(String.format("%04x", (int) s.charAt(i)));
        }
        return b.toString();
    }

    private static String bits(boolean[] v) {
        StringBuilder b = new StringBuilder(v.length);
        for (boolean x : v) {
            b.append(x ? '1' : '0');
        }
        return b.toString();
    }

    // ---- key sets -------------------------------------------------------------

    static final int PRESENT = 600;
    static final int ABSENT = 400;

    // A key set: its funnel, the keys (PRESENT then ABSENT; the first
    // "inserted" of them go into a filter, the rest are probes) and their
    // JSON spellings.
    static final class KeySet {
        final String name;
        final Funnel<Object> funnel;
        final List<Object> keys = new ArrayList<>();
        final List<String> json = new ArrayList<>();

        @SuppressWarnings("unchecked")
        KeySet(String name, Funnel<?> funnel) {
            this.name = name;
            this.funnel = (Funnel<Object>) funnel;
        }

        void add(Object key, String spelling) {
            keys.add(key);
            json.add(spelling);
        }
    }

    static KeySet bytesKeys() {
        KeySet ks = new KeySet("bytes", Funnels.byteArrayFunnel());
        for (int i = 0; i < PRESENT + ABSENT; i++) {
            // Lengths 0..40 cover every murmur3 tail length and several blocks.
            int len = i < 41 ? i : nextInt(41);
            byte[] b = new byte[len];
            for (int j = 0; j < len; j++) {
                b[j] = (byte) next();
            }
            ks.add(b, quote(hex(b)));
        }
        return ks;
    }

    static final String[] WORDS = {
        "", "a", "hello", "Grüße", "naïve café", "日本語", "Привет", "😀", "a😀b",
        "𝄞 clef", "\u0000nul", "tab\there", "quote\"back\\slash", "ÿ", "\u07ff\u0800\uffff",
    };

    static KeySet stringKeys() {
        KeySet ks = new KeySet("string", Funnels.stringFunnel(StandardCharsets.UTF_8));
        for (int i = 0; i < PRESENT + ABSENT; i++) {
            String s;
            if (i < WORDS.length) {
                s = WORDS[i];
            } else {
                switch (i % 4) {
                    case 0: s = "key-" + i; break;
                    case 1: s = "ключ-" + next(); break;
                    case 2: s = WORDS[nextInt(WORDS.length)] + "/" + Long.toHexString(next()); break;
                    default: s = "user:" + nextInt(1000000) + "@example.com"; break;
                }
            }
            ks.add(s, quote(s));
        }
        return ks;
    }

    // Strings for Funnels.unencodedCharsFunnel(): text, surrogate pairs,
    // unpaired and reversed surrogates (which a Java String may hold), and
    // lengths around murmur3's 8-char blocks.
    static final String[] CHAR_WORDS = {
        "", "a", "hello", "Grüße", "日本語", "😀", "a😀b", "𝄞 clef", "\u0000nul", "\uffff\ufffe\ufeff",
        "\ud800", "\udc00", "x\ud83d", "\ude00y", "\udc00\ud800", "\ud83d\ude00\ud83d", "1234567", "12345678",
        "123456789", "0123456789abcdef", "0123456789abcdefg", "ascii then ü", "üüüüüüüüü", "😀😀😀😀😀",
    };

    // randomChars returns up to maxLen code units: mostly ASCII, some other
    // BMP characters, surrogate pairs, and now and then a lone surrogate.
    static String randomChars(int maxLen) {
        int len = nextInt2(maxLen + 1);
        StringBuilder b = new StringBuilder();
        while (b.length() < len) {
            int kind = nextInt2(20);
            if (kind < 10) {
                b.append((char) (0x20 + nextInt2(0x5f)));
            } else if (kind < 15) {
                char c = (char) (0x80 + nextInt2(0xff80));
                b.append(Character.isSurrogate(c) ? '\u00e9' : c);
            } else if (kind < 19) {
                b.appendCodePoint(0x10000 + nextInt2(0x100000));
            } else {
                b.append((char) (0xd800 + nextInt2(0x800)));
            }
        }
        return b.toString();
    }

    static KeySet charKeys() {
        KeySet ks = new KeySet("chars", Funnels.unencodedCharsFunnel());
        for (int i = 0; i < PRESENT + ABSENT; i++) {
            String s;
            if (i < CHAR_WORDS.length) {
                s = CHAR_WORDS[i];
            } else {
                switch (i % 4) {
                    case 0: s = "key-" + i; break;
                    case 1: s = randomChars(12); break;
                    case 2: s = "user:" + nextInt2(1000000) + "@example.com"; break;
                    default: s = CHAR_WORDS[nextInt2(CHAR_WORDS.length)] + "/" + randomChars(6); break;
                }
            }
            ks.add(s, quote(units(s)));
        }
        return ks;
    }

    static final long[] EDGE_LONGS = {
        0L, 1L, -1L, Long.MIN_VALUE, Long.MAX_VALUE, 0x0102030405060708L, 1L << 32, -(1L << 32),
    };

    static KeySet longKeys() {
        KeySet ks = new KeySet("int64", Funnels.longFunnel());
        for (int i = 0; i < PRESENT + ABSENT; i++) {
            long v = i < EDGE_LONGS.length ? EDGE_LONGS[i] : (i % 3 == 0 ? i : next());
            ks.add(v, quote(Long.toString(v)));
        }
        return ks;
    }

    static final int[] EDGE_INTS = {0, 1, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, 0x01020304};

    static KeySet intKeys() {
        KeySet ks = new KeySet("int32", Funnels.integerFunnel());
        for (int i = 0; i < PRESENT + ABSENT; i++) {
            int v = i < EDGE_INTS.length ? EDGE_INTS[i] : (i % 3 == 0 ? i : (int) next());
            ks.add(v, quote(Integer.toString(v)));
        }
        return ks;
    }

    // ---- helpers ----------------------------------------------------------------

    static byte[] serialize(BloomFilter<?> f) throws IOException {
        ByteArrayOutputStream bo = new ByteArrayOutputStream();
        f.writeTo(bo);
        return bo.toByteArray();
    }

    // BloomFilter.Strategy is package-private: reach it by reflection.
    static Class<?> strategyInterface() throws Exception {
        return Class.forName("com.google.common.hash.BloomFilter$Strategy");
    }

    static Object strategy(int ordinal) throws Exception {
        Class<?> c = Class.forName("com.google.common.hash.BloomFilterStrategies");
        return c.getEnumConstants()[ordinal];
    }

    static Method method(String name, Class<?>... params) throws Exception {
        Method m = BloomFilter.class.getDeclaredMethod(name, params);
        m.setAccessible(true);
        return m;
    }

    static BloomFilter<Object> create(Funnel<Object> funnel, long n, double fpp, int strategy) throws Exception {
        Method m = method("create", Funnel.class, long.class, double.class, strategyInterface());
        try {
            @SuppressWarnings("unchecked")
            BloomFilter<Object> f = (BloomFilter<Object>) m.invoke(null, funnel, n, fpp, strategy(strategy));
            return f;
        } catch (java.lang.reflect.InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException) {
                throw (RuntimeException) e.getCause();
            }
            throw e;
        }
    }

    @SuppressWarnings("unchecked")
    static Funnel<Object> sets0funnel() {
        return (Funnel<Object>) (Funnel<?>) Funnels.byteArrayFunnel();
    }

    static String doubleJSON(String key, double v) {
        return "\"" + key + "\":" + quote(Double.toString(v)) + ",\"" + key + "Bits\":" + quote(hexLong(Double.doubleToRawLongBits(v)));
    }

    // ---- sections -----------------------------------------------------------------

    static void murmur() {
        out.append("\"murmur\":[\n");
        List<String> rows = new ArrayList<>();
        for (int len = 0; len <= 64; len++) {
            byte[] b = new byte[len];
            for (int j = 0; j < len; j++) {
                b[j] = (byte) (len == 64 ? next() : j);
            }
            HashCode h = Hashing.murmur3_128().hashBytes(b);
            rows.add("{\"funnel\":\"bytes\",\"key\":" + quote(hex(b)) + ",\"hash\":" + quote(hex(h.asBytes())) + "}");
        }
        for (String s : WORDS) {
            HashCode h = Hashing.murmur3_128().hashString(s, StandardCharsets.UTF_8);
            rows.add("{\"funnel\":\"string\",\"key\":" + quote(s) + ",\"hash\":" + quote(hex(h.asBytes())) + "}");
        }
        List<String> charKeys = new ArrayList<>(java.util.Arrays.asList(CHAR_WORDS));
        for (int len = 0; len <= 24; len++) {
            // Every tail length, with random units.
            StringBuilder b = new StringBuilder();
            for (int j = 0; j < len; j++) {
                b.append((char) next2());
            }
            charKeys.add(b.toString());
        }
        for (String s : charKeys) {
            HashCode h = Hashing.murmur3_128().hashObject(s, Funnels.unencodedCharsFunnel());
            // The funnel puts each char as two little-endian bytes, whatever
            // the string holds; check that claim against Guava itself.
            byte[] le = new byte[2 * s.length()];
            for (int j = 0; j < s.length(); j++) {
                le[2 * j] = (byte) s.charAt(j);
                le[2 * j + 1] = (byte) (s.charAt(j) >>> 8);
            }
            if (!h.equals(Hashing.murmur3_128().hashBytes(le)) || !h.equals(Hashing.murmur3_128().hashUnencodedChars(s))) {
                throw new IllegalStateException("unencodedCharsFunnel is not UTF-16LE for " + units(s));
            }
            boolean wellFormed = s.codePoints().noneMatch(cp -> cp >= 0xd800 && cp <= 0xdfff);
            if (wellFormed && !h.equals(Hashing.murmur3_128().hashBytes(s.getBytes(StandardCharsets.UTF_16LE)))) {
                throw new IllegalStateException("unencodedCharsFunnel differs from UTF_16LE for " + units(s));
            }
            rows.add("{\"funnel\":\"chars\",\"key\":" + quote(units(s)) + ",\"hash\":" + quote(hex(h.asBytes())) + "}");
        }
        for (long v : EDGE_LONGS) {
            HashCode h = Hashing.murmur3_128().hashLong(v);
            rows.add("{\"funnel\":\"int64\",\"key\":" + quote(Long.toString(v)) + ",\"hash\":" + quote(hex(h.asBytes())) + "}");
        }
        for (int v : EDGE_INTS) {
            HashCode h = Hashing.murmur3_128().hashInt(v);
            rows.add("{\"funnel\":\"int32\",\"key\":" + quote(Integer.toString(v)) + ",\"hash\":" + quote(hex(h.asBytes())) + "}");
        }
        out.append(String.join(",\n", rows)).append("\n]");
    }

    static void keySets(KeySet[] sets) {
        out.append("\"keySets\":{\n");
        List<String> rows = new ArrayList<>();
        for (KeySet ks : sets) {
            rows.add(quote(ks.name) + ":[" + String.join(",", ks.json) + "]");
        }
        out.append(String.join(",\n", rows)).append("\n}");
    }

    // Filter configurations: expected insertions, fpp, keys actually inserted.
    static final Object[][] CONFIGS = {
        {0L, 0.03, 5},        // n = 0 is treated as 1; overfilled
        {1L, 0.5, 3},
        {10L, 0.1, 10},
        {64L, 0.05, 0},       // empty filter
        {100L, 0.03, 100},    // Guava's default fpp
        {100L, 0.9, 200},     // one word, k = 1, saturated
        {500L, 0.01, 600},    // overfilled
        {1000L, 1e-6, 600},
        {50L, 1e-30, 50},     // tiny fpp, k = 100
        {3L, 1e-70, 3},       // k = 233
    };

    static void filters(KeySet[] sets) throws Exception {
        out.append("\"filters\":[\n");
        List<String> rows = new ArrayList<>();
        for (int strategy = 0; strategy <= 1; strategy++) {
            for (Object[] cfg : CONFIGS) {
                long n = (Long) cfg[0];
                double fpp = (Double) cfg[1];
                int inserted = (Integer) cfg[2];
                for (KeySet ks : sets) {
                    BloomFilter<Object> f = create(ks.funnel, n, fpp, strategy);
                    boolean[] puts = new boolean[inserted];
                    for (int i = 0; i < inserted; i++) {
                        puts[i] = f.put(ks.keys.get(i));
                    }
                    boolean[] answers = new boolean[ks.keys.size()];
                    for (int i = 0; i < answers.length; i++) {
                        answers[i] = f.mightContain(ks.keys.get(i));
                    }
                    byte[] ser = serialize(f);
                    BloomFilter<Object> back = BloomFilter.readFrom(new ByteArrayInputStream(ser), ks.funnel);
                    if (!back.equals(f) || !java.util.Arrays.equals(serialize(back), ser)) {
                        throw new IllegalStateException("Guava round trip failed");
                    }
                    long approx;
                    String approxJSON;
                    try {
                        approx = f.approximateElementCount();
                        approxJSON = quote(Long.toString(approx));
                    } catch (ArithmeticException e) {
                        approxJSON = quote("ArithmeticException");
                    }
                    rows.add("{\"strategy\":" + strategy + ",\"n\":" + n + "," + doubleJSON("fpp", fpp)
                            + ",\"funnel\":" + quote(ks.name) + ",\"inserted\":" + inserted
                            + ",\"puts\":" + quote(bits(puts))
                            + ",\"answers\":" + quote(bits(answers))
                            + "," + doubleJSON("expectedFpp", f.expectedFpp())
                            + ",\"approximateElementCount\":" + approxJSON
                            + ",\"serialized\":" + quote(hex(ser)) + "}");
                }
            }
        }
        out.append(String.join(",\n", rows)).append("\n]");
    }

    // Unions: a filter of the first half of the keys putAll a filter of the second.
    static void unions(KeySet[] sets) throws Exception {
        out.append("\"unions\":[\n");
        List<String> rows = new ArrayList<>();
        for (int strategy = 0; strategy <= 1; strategy++) {
            for (KeySet ks : sets) {
                BloomFilter<Object> a = create(ks.funnel, 300, 0.02, strategy);
                BloomFilter<Object> b = create(ks.funnel, 300, 0.02, strategy);
                for (int i = 0; i < 300; i++) {
                    (i < 150 ? a : b).put(ks.keys.get(i));
                }
                byte[] sa = serialize(a), sb = serialize(b);
                a.putAll(b);
                String approx = Long.toString(a.approximateElementCount());
                rows.add("{\"funnel\":" + quote(ks.name) + ",\"a\":" + quote(hex(sa)) + ",\"b\":" + quote(hex(sb))
                        + ",\"union\":" + quote(hex(serialize(a))) + "," + doubleJSON("expectedFpp", a.expectedFpp())
                        + ",\"approximateElementCount\":" + quote(approx) + "}");
            }
        }
        out.append(String.join(",\n", rows)).append("\n]");
    }

    static final double[] FPPS = {
        Double.MIN_VALUE, 1e-300, 1e-77, 1e-76, 1e-50, 1e-30, 1e-9, 1e-6, 0.001, 0.01, 0.03, 0.1,
        0.3, 0.5, 0.9, 0.99, 0.999999, Math.nextDown(1.0), 0.0, -0.5, 1.0, 2.0, Double.NaN,
        Double.POSITIVE_INFINITY,
    };
    static final long[] NS = {
        -1L, Long.MIN_VALUE, 0L, 1L, 2L, 3L, 7L, 10L, 100L, 1000L, 12345L, 1000000L, 1000000000L,
        1L << 31, 1L << 34, 1000000000000L, 1L << 40, 1L << 50, 1L << 62, Long.MAX_VALUE,
    };

    // sizing records optimalNumOfBits and optimalNumOfHashFunctions as Guava
    // computes them, and whether create() accepts the arguments. create() is
    // only run where the filter is small or the arguments are rejected before
    // anything is allocated; "create":"skipped" marks the others.
    static void sizing() throws Exception {
        Method bitsM = method("optimalNumOfBits", long.class, double.class);
        Method hashM = method("optimalNumOfHashFunctions", long.class, long.class);
        out.append("\"sizing\":[\n");
        List<String> rows = new ArrayList<>();
        List<Object[]> all = new ArrayList<>();
        for (long n : NS) {
            for (double p : FPPS) {
                all.add(new Object[] {n, p});
            }
        }
        for (int i = 0; i < 400; i++) {
            // Log-uniform n in [1, 2^40) and fpp in [1e-12, 1).
            long n = (long) Math.exp(nextInt(1 << 30) / (double) (1 << 30) * Math.log(1L << 40));
            double p = Math.exp(-(nextInt(1 << 30) / (double) (1 << 30)) * Math.log(1e12));
            all.add(new Object[] {n, p});
        }
        for (Object[] c : all) {
            long n = (Long) c[0];
            double p = (Double) c[1];
            String row = "{\"n\":" + quote(Long.toString(n)) + "," + doubleJSON("fpp", p);
            boolean argsOK = n >= 0 && p > 0 && p < 1;
            if (argsOK) {
                long nn = n == 0 ? 1 : n;
                long m = (Long) bitsM.invoke(null, nn, p);
                int k = (Integer) hashM.invoke(null, nn, m);
                row += ",\"bits\":" + quote(Long.toString(m)) + ",\"k\":" + k;
                long words = (m + 63) / 64;
                boolean small = m <= 0 || words > Integer.MAX_VALUE || words <= (1 << 16);
                if (!small) {
                    row += ",\"create\":\"skipped\"";
                    rows.add(row + "}");
                    continue;
                }
            }
            String result;
            try {
                create(sets0funnel(), n, p, 1);
                result = "ok";
            } catch (IllegalArgumentException e) {
                result = "error";
            }
            rows.add(row + ",\"create\":\"" + result + "\"}");
        }
        out.append(String.join(",\n", rows)).append("\n]");
    }

    // decode records readFrom's verdict on crafted streams, and the
    // re-serialization of those it accepts.
    static void decode(byte[] valid) throws Exception {
        List<byte[]> inputs = new ArrayList<>();
        for (int len = 0; len < valid.length; len++) {
            inputs.add(java.util.Arrays.copyOf(valid, len));
        }
        inputs.add(valid);
        byte[] trailing = java.util.Arrays.copyOf(valid, valid.length + 3);
        inputs.add(trailing);
        for (int s : new int[] {0, 1, 2, 3, 0x7f, 0x80, 0xff}) {
            byte[] b = valid.clone();
            b[0] = (byte) s;
            inputs.add(b);
        }
        for (int k : new int[] {0, 1, 0x7f, 0x80, 0xff}) {
            byte[] b = valid.clone();
            b[1] = (byte) k;
            inputs.add(b);
        }
        for (int words : new int[] {0, -1, Integer.MIN_VALUE, 1, 2, 1 << 20}) {
            ByteBuffer bb = ByteBuffer.allocate(6 + 8);
            bb.put((byte) 1).put((byte) 3).putInt(words).putLong(0x8000000000000001L);
            inputs.add(bb.array());
        }
        out.append("\"decode\":[\n");
        List<String> rows = new ArrayList<>();
        for (byte[] in : inputs) {
            String row = "{\"input\":" + quote(hex(in));
            try {
                BloomFilter<byte[]> f = BloomFilter.readFrom(new ByteArrayInputStream(in), Funnels.byteArrayFunnel());
                row += ",\"ok\":true,\"reserialized\":" + quote(hex(serialize(f)));
            } catch (IOException e) {
                row += ",\"ok\":false";
            }
            rows.add(row + "}");
        }
        out.append(String.join(",\n", rows)).append("\n]");
    }

    // mathFunctions records Java's Math.log and Math.pow, which Guava's sizing
    // and expectedFpp use, on the kind of arguments they get: fpp values
    // (Math.log) and (bitCount / bitSize, k) pairs (Math.pow). Values are the
    // raw bits of the doubles.
    static void mathFunctions() {
        out.append("\"log\":[\n");
        List<String> rows = new ArrayList<>();
        double[] special = {Double.MIN_VALUE, 1e-320, 1e-310, Double.MIN_NORMAL, 1e-300, 1e-77, 1e-6, 0.001,
            0.01, 0.03, 0.1, 0.5, 0.9, 0.99, Math.nextDown(1.0), 2.0};
        List<Double> xs = new ArrayList<>();
        for (double x : special) {
            xs.add(x);
        }
        for (int i = 0; i < 600; i++) {
            // Log-uniform over (1e-320, 1): fpp-like arguments, subnormals included.
            xs.add(Math.exp(-(nextInt(1 << 30) / (double) (1 << 30)) * 736.8));
        }
        for (double x : xs) {
            rows.add("[" + quote(hexLong(Double.doubleToRawLongBits(x))) + "," + quote(hexLong(Double.doubleToRawLongBits(Math.log(x)))) + "]");
        }
        out.append(String.join(",\n", rows)).append("\n],\n");
        out.append("\"log1p\":[\n");
        rows.clear();
        for (int i = 0; i < 600; i++) {
            // -fraction of bits set, as approximateElementCount passes it.
            long bitSize = 64L * (1 + nextInt(i % 2 == 0 ? 64 : 1 << 24));
            double x = -((double) Long.remainderUnsigned(next(), bitSize) / bitSize);
            rows.add("[" + quote(hexLong(Double.doubleToRawLongBits(x))) + "," + quote(hexLong(Double.doubleToRawLongBits(Math.log1p(x)))) + "]");
        }
        out.append(String.join(",\n", rows)).append("\n],\n");
        out.append("\"pow\":[\n");
        rows.clear();
        for (int i = 0; i < 600; i++) {
            long bitSize = 64L * (1 + nextInt(i % 2 == 0 ? 64 : 1 << 24));
            long bitCount = Long.remainderUnsigned(next(), bitSize + 1);
            int k = 1 + nextInt(255);
            double x = (double) bitCount / bitSize;
            double p = Math.pow(x, k);
            checkStrictPow(x, k, p);
            rows.add("[" + quote(hexLong(Double.doubleToRawLongBits(x))) + "," + k + "," + quote(hexLong(Double.doubleToRawLongBits(p))) + "]");
        }
        out.append(String.join(",\n", rows)).append("\n]");
    }

    // checkStrictPow stops the generator unless Math.pow returned what
    // StrictMath.pow returns, as it does on HotSpot for aarch64, and on
    // x86-64 only with the intrinsic disabled (gen.sh does that): HotSpot's
    // x86-64 intrinsic differs in the last bit for about one (x, k) in ten.
    static void checkStrictPow(double x, double y, double mathPow) {
        if (Double.doubleToRawLongBits(mathPow) != Double.doubleToRawLongBits(StrictMath.pow(x, y))) {
            throw new IllegalStateException("Math.pow(" + x + ", " + y + ") is not StrictMath.pow: run through gen.sh, "
                    + "which disables HotSpot's pow intrinsic");
        }
    }

    // strictPow records StrictMath.pow (fdlibm's e_pow.c) on special and
    // random arguments, beyond the (fraction, k) pairs expectedFpp passes it.
    static void strictPow() {
        double[] special = {0.0, -0.0, 1.0, -1.0, 2.0, 0.5, -0.5, -3.0, Double.POSITIVE_INFINITY,
            Double.NEGATIVE_INFINITY, Double.NaN, Double.MIN_VALUE, -Double.MAX_VALUE, 0x1.0p53,
            0x1.00000ffffffffp31, 0x1.000010p31, Math.nextDown(1.0), 0x1.fffff0p-1, -1075.0, 0.7};
        List<double[]> args = new ArrayList<>();
        for (double x : special) {
            for (double y : special) {
                args.add(new double[] {x, y});
            }
        }
        for (int i = 0; i < 200; i++) {
            double x, y;
            switch (i % 5) {
                case 0: // anything
                    x = Double.longBitsToDouble(next2());
                    y = Double.longBitsToDouble(next2());
                    break;
                case 1: // moderate powers of moderate numbers, either sign
                    x = (nextInt2(2000001) - 1000000) / 1000.0;
                    y = (nextInt2(4001) - 2000) / 16.0;
                    break;
                case 2: // x near 1, huge y
                    x = 1 + (nextInt2(2001) - 1000) * 0x1.0p-30;
                    y = (nextInt2(2) * 2 - 1) * Math.scalb(1.0 + nextInt2(1 << 20) * 0x1.0p-20, 20 + nextInt2(40));
                    break;
                case 3: // subnormal x
                    x = Double.longBitsToDouble(next2() & 0x800fffffffffffffL);
                    y = (nextInt2(401) - 200) / 100.0;
                    break;
                default: // results near overflow and underflow
                    x = 1 + nextInt2(1 << 30) * 0x1.0p-30;
                    y = (nextInt2(2) * 2 - 1) * (1070 + nextInt2(10)) / (StrictMath.log(x) / StrictMath.log(2));
                    break;
            }
            args.add(new double[] {x, y});
        }
        out.append("\"strictPow\":[\n");
        List<String> rows = new ArrayList<>();
        for (double[] a : args) {
            double p = StrictMath.pow(a[0], a[1]);
            rows.add("[" + quote(hexLong(Double.doubleToRawLongBits(a[0]))) + "," + quote(hexLong(Double.doubleToRawLongBits(a[1])))
                    + "," + quote(hexLong(Double.doubleToRawLongBits(p))) + "]");
        }
        out.append(String.join(",\n", rows)).append("\n]");
    }

    // utf8 records the String Java decodes from byte sequences that are not
    // all valid UTF-8: every sequence of one or two bytes from a set of
    // representatives of each kind of byte, every three-byte sequence from a
    // smaller set, and random mixtures of text and stray bytes. Each row is
    // the input in hex and the String's code units (as units() spells them).
    static void utf8() throws Exception {
        int[] reps = {0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1,
            0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff};
        int[] reps3 = {0x41, 0x80, 0x90, 0xa0, 0xc2, 0xe0, 0xed, 0xf0, 0xf4};
        List<byte[]> inputs = new ArrayList<>();
        for (int a : reps) {
            inputs.add(new byte[] {(byte) a});
        }
        for (int a : reps) {
            for (int b : reps) {
                inputs.add(new byte[] {(byte) a, (byte) b});
            }
        }
        for (int a : reps3) {
            for (int b : reps3) {
                for (int c : reps3) {
                    inputs.add(new byte[] {(byte) a, (byte) b, (byte) c});
                }
            }
        }
        String[] pieces = {"a", "é", "日", "😀", "\u07ff", "\u0800", "\uffff", "\ud7ff", "\ue000", "\udbff\udfff"};
        for (int i = 0; i < 150; i++) {
            java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
            for (int n = nextInt2(8); n >= 0; n--) {
                if (nextInt2(3) == 0) {
                    b.write(0x80 + nextInt2(0x80)); // a stray byte >= 0x80
                } else if (nextInt2(4) == 0) {
                    // a truncated or broken multi-byte sequence
                    byte[] p = pieces[nextInt2(pieces.length)].getBytes(StandardCharsets.UTF_8);
                    b.write(p, 0, Math.max(1, nextInt2(p.length)));
                } else {
                    b.writeBytes(pieces[nextInt2(pieces.length)].getBytes(StandardCharsets.UTF_8));
                }
            }
            inputs.add(b.toByteArray());
        }
        out.append("\"utf8\":[\n");
        List<String> rows = new ArrayList<>();
        for (byte[] in : inputs) {
            String s = new String(in, StandardCharsets.UTF_8);
            // A replacing CharsetDecoder must agree with the String constructor.
            String viaDecoder = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(java.nio.charset.CodingErrorAction.REPLACE)
                    .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPLACE)
                    .decode(ByteBuffer.wrap(in)).toString();
            if (!s.equals(viaDecoder)) {
                throw new IllegalStateException("String and CharsetDecoder disagree on " + hex(in));
            }
            rows.add("[" + quote(hex(in)) + "," + quote(units(s)) + "]");
        }
        out.append(String.join(",\n", rows)).append("\n]");
    }

    // The statistics sweep: for small filters, every bit count from empty to
    // full, at every number of hash functions, through real BloomFilter
    // objects (read from streams whose lowest bitCount bits are set; the
    // strategy alternates with k, and neither it nor the bits' positions
    // enter the statistics).
    static final int[] SWEEP_WORDS = {1, 2, 3, 4, 5, 6, 7, 8, 16, 32};
    static final int[] SWEEP_LISTED_K = {1, 2, 3, 4, 5, 7, 10, 20, 64, 255};

    static BloomFilter<byte[]> withBitCount(int words, int k, int bitCount) throws IOException {
        ByteBuffer bb = ByteBuffer.allocate(6 + 8 * words);
        bb.put((byte) (k % 2)).put((byte) k).putInt(words);
        for (int w = 0; w < words; w++) {
            int n = Math.max(0, Math.min(64, bitCount - 64 * w));
            bb.putLong(n == 64 ? -1L : (1L << n) - 1);
        }
        return BloomFilter.readFrom(new ByteArrayInputStream(bb.array()), Funnels.byteArrayFunnel());
    }

    // approx is approximateElementCount, with Long.MAX_VALUE (what sift
    // returns) where Guava throws ArithmeticException, which it must do only
    // for a full filter.
    static long approx(BloomFilter<?> f, boolean full) {
        try {
            long a = f.approximateElementCount();
            if (full) {
                throw new IllegalStateException("approximateElementCount of a full filter returned " + a);
            }
            return a;
        } catch (ArithmeticException e) {
            if (!full) {
                throw e;
            }
            return Long.MAX_VALUE;
        }
    }

    // sweep writes, for each size and k, the first 8 bytes of the SHA-256 of
    // the sequence of (expectedFpp's raw bits, approximateElementCount) as
    // big-endian longs over bitCount = 0..bitSize, and for the 64-bit filter
    // and a few k the values themselves.
    static void sweep() throws Exception {
        out.append("\"sweep\":[\n");
        List<String> rows = new ArrayList<>();
        for (int words : SWEEP_WORDS) {
            int bitSize = 64 * words;
            StringBuilder digests = new StringBuilder();
            for (int k = 1; k <= 255; k++) {
                java.security.MessageDigest md = java.security.MessageDigest.getInstance("SHA-256");
                StringBuilder fpps = new StringBuilder();
                List<String> counts = new ArrayList<>();
                for (int c = 0; c <= bitSize; c++) {
                    BloomFilter<byte[]> f = withBitCount(words, k, c);
                    double e = f.expectedFpp();
                    checkStrictPow((double) c / bitSize, k, e);
                    long a = approx(f, c == bitSize);
                    md.update(ByteBuffer.allocate(16).putLong(Double.doubleToRawLongBits(e)).putLong(a).array());
                    fpps.append(hexLong(Double.doubleToRawLongBits(e)));
                    counts.add(Long.toString(a));
                }
                digests.append(hex(java.util.Arrays.copyOf(md.digest(), 8)));
                if (words == 1 && contains(SWEEP_LISTED_K, k)) {
                    rows.add("{\"bitSize\":" + bitSize + ",\"k\":" + k + ",\"expectedFppBits\":" + quote(fpps.toString())
                            + ",\"approximateElementCounts\":" + quote(String.join(",", counts)) + "}");
                }
            }
            rows.add("{\"bitSize\":" + bitSize + ",\"digests\":" + quote(digests.toString()) + "}");
        }
        out.append(String.join(",\n", rows)).append("\n]");
    }

    static boolean contains(int[] a, int x) {
        for (int v : a) {
            if (v == x) {
                return true;
            }
        }
        return false;
    }

    // ---- expectedFpp as this JVM's Math.pow computes it ---------------------

    // mathPow writes expectedFpp() of real BloomFilter objects (read from
    // streams whose lowest bits are set, as the sweep does) at random
    // Guava-shaped states, with whatever Math.pow this JVM runs: on x86-64
    // HotSpot with default flags an intrinsic, which is not StrictMath.pow.
    // Its own stream keeps the main file's inputs unchanged.
    static void mathPow(String guavaVersion) throws Exception {
        SplitMix r = new SplitMix(0x9A11D9A11D9A11DL);
        String vm = System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version");
        String arch = System.getProperty("os.arch");
        List<String> flags = java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments();
        List<String> rows = new ArrayList<>();
        int differ = 0;
        final int states = 10000;
        for (int i = 0; i <= states; i++) {
            int words, bitCount, k;
            if (i == states) {
                words = 10432 / 64; // the state of sift's issue 17: (7720/10432)^3
                bitCount = 7720;
                k = 3;
            } else {
                words = 1 + (int) Long.remainderUnsigned(r.next(), i % 2 == 0 ? 64 : 4096);
                bitCount = (int) Long.remainderUnsigned(r.next(), 64L * words + 1);
                k = 1 + (int) Long.remainderUnsigned(r.next(), i % 4 == 0 ? 255 : 30);
            }
            double e = withBitCount(words, k, bitCount).expectedFpp();
            if (Double.doubleToRawLongBits(e) != Double.doubleToRawLongBits(StrictMath.pow((double) bitCount / (64.0 * words), k))) {
                differ++;
            }
            rows.add("[" + words + "," + bitCount + "," + k + "," + quote(hexLong(Double.doubleToRawLongBits(e))) + "]");
        }
        out.append("{\n\"generator\":\"classic/testdata/guava/gen.sh\",\n");
        out.append("\"guava\":").append(quote(guavaVersion)).append(",\n");
        out.append("\"java\":").append(quote(System.getProperty("java.version"))).append(",\n");
        out.append("\"vm\":").append(quote(vm)).append(",\n");
        out.append("\"arch\":").append(quote(arch)).append(",\n");
        out.append("\"flags\":").append(quote(String.join(" ", flags))).append(",\n");
        // "strict": Math.pow gave StrictMath.pow's value in every state.
        out.append("\"pow\":").append(quote(differ == 0 ? "strict" : "intrinsic")).append(",\n");
        out.append("\"differFromStrictMath\":").append(differ).append(",\n");
        out.append("\"states\":[\n").append(String.join(",\n", rows)).append("\n]\n}\n");
    }

    public static void main(String[] args) throws Exception {
        String guavaVersion = args.length > 0 ? args[0] : "unknown";
        if (args.length > 1 && args[1].equals("mathpow")) {
            // [words, bitCount, k, expectedFpp's raw bits] per state.
            mathPow(guavaVersion);
            PrintStream ps = new PrintStream(System.out, false, StandardCharsets.US_ASCII);
            ps.print(out);
            ps.flush();
            return;
        }
        KeySet[] sets = {bytesKeys(), stringKeys(), longKeys(), intKeys(), charKeys()};

        out.append("{\n\"generator\":\"classic/testdata/guava/gen.sh\",\n");
        out.append("\"guava\":").append(quote(guavaVersion)).append(",\n");
        out.append("\"java\":").append(quote(System.getProperty("java.version"))).append(",\n");
        murmur();
        out.append(",\n");
        keySets(sets);
        out.append(",\n");
        filters(sets);
        out.append(",\n");
        unions(sets);
        out.append(",\n");
        sizing();
        out.append(",\n");
        mathFunctions();
        out.append(",\n");

        BloomFilter<Object> small = create(sets[0].funnel, 20, 0.01, 1);
        for (int i = 0; i < 20; i++) {
            small.put(sets[0].keys.get(i));
        }
        decode(serialize(small));
        out.append(",\n");
        strictPow();
        out.append(",\n");
        utf8();
        out.append(",\n");
        sweep();
        out.append("\n}\n");

        PrintStream ps = new PrintStream(System.out, false, StandardCharsets.US_ASCII);
        ps.print(out);
        ps.flush();
    }
}

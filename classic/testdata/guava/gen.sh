#!/bin/sh
# gen.sh regenerates vectors.json and mathpow-ARCH.json with the real Guava
# BloomFilter.
#
# Needs a JDK (javac, java >= 11) and Guava's jar: on Debian/Ubuntu
#   apt-get install -y default-jdk-headless libguava-java
# Set GUAVA_JAR to use another jar. The Go tests read the committed
# vectors.json and need neither.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
jar=${GUAVA_JAR:-$(ls /usr/share/java/guava.jar 2>/dev/null || ls /usr/share/java/guava-*.jar | head -n 1)}
version=$(unzip -p "$jar" META-INF/MANIFEST.MF | tr -d '\r' | sed -n 's/^Bundle-Version: //p')
[ -n "$version" ] || version=$(basename "$jar")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
javac -encoding UTF-8 -d "$tmp" -cp "$jar" "$here/GuavaVectors.java"
# Guava's expectedFpp is Math.pow. HotSpot on x86-64 computes Math.pow with
# an intrinsic whose last bit differs from StrictMath.pow (fdlibm) for about
# one (fraction, k) in ten; HotSpot on aarch64 has no such intrinsic and
# returns StrictMath's value. The main vectors follow StrictMath (sift's
# StrictExpectedFpp), so they are made with the pow intrinsic disabled (and
# the generator checks that it is). The other intrinsics (Math.log, used for
# sizing) stay as they are.
java -XX:+UnlockDiagnosticVMOptions -XX:DisableIntrinsic=_dpow \
	-cp "$tmp:$jar" GuavaVectors "$version" > "$tmp/vectors.json"
mv "$tmp/vectors.json" "$here/vectors.json"
echo "wrote $here/vectors.json with Guava $version ($(wc -c < "$here/vectors.json") bytes)"
# A second run with the JVM's default flags records expectedFpp with this
# JVM's own Math.pow (on x86-64 HotSpot an intrinsic, not StrictMath.pow)
# for ExpectedFpp's test, in a file named for the machine it ran on.
arch=$(uname -m)
java -cp "$tmp:$jar" GuavaVectors "$version" mathpow > "$tmp/mathpow.json"
mv "$tmp/mathpow.json" "$here/mathpow-$arch.json"
echo "wrote $here/mathpow-$arch.json ($(grep -o '"pow":"[a-z]*"' "$here/mathpow-$arch.json"))"

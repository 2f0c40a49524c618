#!/bin/sh
# ARMv7-A int8: instructions of the reference and armv7_neon kernels (bench/armv7_int8_count.cpp)
# under qemu-arm, one guest instruction per translation block (-singlestep), every execution of
# a block logged (-d exec,nochain); the lines between sf_count_begin and sf_count_end are the
# span's instructions. Instructions are a proxy for time: no cycles, no memory effects.
#   tools/armv7_int8_count.sh [-O2|-O3|-Os] [build dir]      (make count-armv7-int8)
set -eu
opt=${1:--O2}
root=$(cd "$(dirname "$0")/.." && pwd)
out=${2:-$root/build/armv7-int8-count}
mkdir -p "$out"
prog="$out/count$opt"
arm-linux-gnueabihf-g++ -std=c++17 "$opt" -march=armv7-a -mfpu=neon-vfpv4 -mfloat-abi=hard -static \
    -I"$root/include" -I"$root/tests" -o "$prog" "$root/bench/armv7_int8_count.cpp"
fifo="$out/exec.fifo"
rm -f "$fifo" && mkfifo "$fifo"
# One count per span, in order (the markers' symbol names end their log lines).
awk '/ sf_count_begin$/ { on = 1; n = 0; next }
     / sf_count_end$/ { if (on) print n; on = 0; next }
     on { n++ }' "$fifo" > "$out/counts" &
counter=$!
status=0
qemu-arm -singlestep -d exec,nochain -D "$fifo" "$prog" > "$out/spans" || status=$?
wait "$counter"
rm -f "$fifo"
echo "ARMv7-A (-march=armv7-a -mfpu=neon-vfpv4 $opt, Thumb-2), instructions per call, markers' cost subtracted"
grep -v '^bytes' "$out/spans" | paste - "$out/counts" | awk -F '\t' '
    $2 == "none" { base = $3; next }
    $2 == "reference" { ref[$1] = $3 - base; order[++n] = $1; next }
    { neon[$1] = $3 - base }
    END {
        print "| span | reference | armv7_neon | reference / armv7_neon |"
        print "|---|--:|--:|--:|"
        for (i = 1; i <= n; ++i) printf "| %s | %d | %d | %.2f |\n", order[i], ref[order[i]], neon[order[i]], ref[order[i]] / neon[order[i]]
    }'
grep '^bytes' "$out/spans" | sed 's/^bytes\t/output bytes of both backends: /'
exit $status

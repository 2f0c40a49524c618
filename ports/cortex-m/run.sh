#!/bin/sh
# staticformer Cortex-M port: runs a firmware ELF under qemu-system-arm and exits with its exit
# code (main's return value, through semihosting). The toolchain files make it ctest's
# CMAKE_CROSSCOMPILING_EMULATOR, so add_test(NAME x COMMAND firmware) runs the firmware.
#
#   run.sh [-M board] [--timeout seconds] [--icount] firmware.elf [args...]
#
#   -M board      QEMU machine; default: the one for the ELF's core (its build attributes):
#                 Cortex-M3 mps2-an385, M4 mps2-an386, M7 mps2-an500, M55 mps3-an547
#   --timeout s   host seconds before the run is killed (exit 124); default 300
#   --icount      print the instructions executed from reset to exit (startup.cpp prints it)
#   args          the firmware's argv[1..] (semihosting command line: no spaces inside one)
#
# Environment: SF_PORT_TIMEOUT, SF_PORT_ICOUNT=1 (as --icount), SF_PORT_QEMU (the binary),
# SF_PORT_EXPECT_EXIT=n: exit 0 if the firmware exits with n, else 1 (tests of failure paths).
#
# -icount shift=0: the guest clock advances 1 ns per instruction and never follows the host
# clock, so runs are deterministic and cycle_counter.h counts instructions.
set -u

machine=""
timeout_s="${SF_PORT_TIMEOUT:-300}"
icount="${SF_PORT_ICOUNT:-0}"
while [ $# -gt 0 ]; do
    case "$1" in
        -M) machine="$2"; shift 2 ;;
        --timeout) timeout_s="$2"; shift 2 ;;
        --icount) icount=1; shift ;;
        --) shift; break ;;
        -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
        *) break ;;
    esac
done
if [ $# -lt 1 ]; then
    echo "usage: run.sh [-M board] [--timeout seconds] [--icount] firmware.elf [args...]" >&2
    exit 2
fi
elf="$1"
shift
if [ ! -f "$elf" ]; then
    echo "run.sh: no such firmware: $elf" >&2
    exit 2
fi

if [ -z "$machine" ]; then
    # GCC names the architecture, not the core, in Tag_CPU_name ("7E-M" for both M4 and M7):
    # tell the cores apart by architecture and FPU.
    attrs=$(arm-none-eabi-readelf -A "$elf" 2>/dev/null)
    arch=$(printf '%s\n' "$attrs" | sed -n 's/.*Tag_CPU_arch: //p')
    case "$arch" in
        v8.1-M*) machine=mps3-an547 ;;
        v7E-M) case "$attrs" in *"Tag_FP_arch: FPv5"*) machine=mps2-an500 ;; *) machine=mps2-an386 ;; esac ;;
        v7) machine=mps2-an385 ;;
        *) echo "run.sh: cannot tell the board of $elf (architecture '$arch'); pass -M" >&2; exit 2 ;;
    esac
fi

cmdline="$*"
if [ "$icount" = 1 ]; then cmdline="${cmdline:+$cmdline }--sf-icount"; fi

# sleep=off: should the firmware ever wait for an interrupt, virtual time jumps ahead instead of
# following the host clock, which keeps that case deterministic too.
timeout -k 5 "$timeout_s" "${SF_PORT_QEMU:-qemu-system-arm}" -M "$machine" -nographic \
    -semihosting-config enable=on,target=native -icount shift=0,sleep=off \
    -kernel "$elf" ${cmdline:+-append "$cmdline"}
status=$?
if [ $status -eq 124 ]; then
    echo "run.sh: $elf timed out after ${timeout_s} s" >&2
fi

if [ -n "${SF_PORT_EXPECT_EXIT:-}" ]; then
    if [ "$status" -eq "$SF_PORT_EXPECT_EXIT" ]; then
        echo "run.sh: exit code $status, as expected"
        exit 0
    fi
    echo "run.sh: exit code $status, expected $SF_PORT_EXPECT_EXIT" >&2
    exit 1
fi
exit $status

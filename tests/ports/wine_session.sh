# Sourced by check_windows.sh and check_msvc.sh (after $build is set): the
# Wine both run their programs under, one wineserver for the whole check.
# Without it every program starts a wineserver that lingers 3 s after its
# last client and then exits; a program started as it exits is refused
# ("wine client error:0: recvmsg: Connection reset by peer"), which CI saw
# once in about a hundred program starts. A persistent server (-p) stays
# until the check ends and stops it.
wine=/usr/lib/wine/wine64
[ -x "$wine" ] || wine=$(command -v wine64 || command -v wine)
wineserver=/usr/lib/wine/wineserver64
[ -x "$wineserver" ] || wineserver=$(command -v wineserver64 || command -v wineserver)
export WINEDEBUG=-all WINEPREFIX="${WINEPREFIX:-$build/wineprefix}"
mkdir -p "$WINEPREFIX"
"$wineserver" -p
trap '"$wineserver" -k 2>/dev/null || true' EXIT

#!/usr/bin/env bash
# Packs what tracesvc reads from an Instruments recording into one file to upload (macOS, Xcode 26+).
#
#   scripts/export-instruments-trace.sh RUN.trace [OUT.tar.gz] [--run N]
#
# Runs `xcrun xctrace export --toc` and one `--xpath` export per table tracesvc reads, then
# packs them as OUT (default: RUN.xctrace.tar.gz next to the recording).
set -euo pipefail

usage() { echo "usage: $0 RUN.trace [OUT.tar.gz] [--run N]" >&2; exit 2; }

run=1
positional=()
while [ $# -gt 0 ]; do
    case "$1" in
        --run) [ $# -ge 2 ] || usage; run="$2"; shift 2 ;;
        -h|--help) usage ;;
        *) positional+=("$1"); shift ;;
    esac
done
[ ${#positional[@]} -ge 1 ] && [ ${#positional[@]} -le 2 ] || usage
trace="${positional[0]%/}"
[ -e "$trace" ] || { echo "no such recording: $trace" >&2; exit 1; }
name=$(basename "$trace" .trace)
out="${positional[1]:-$(dirname "$trace")/$name.xctrace.tar.gz}"
command -v xcrun >/dev/null 2>&1 || { echo "xcrun not found: run this on a Mac with Xcode installed" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/$name"

echo "reading the table of contents of $trace"
xcrun xctrace export --input "$trace" --toc --output "$work/$name/toc.xml"

has_table() { grep -q "schema=\"$1\"" "$work/$name/toc.xml"; }

# swiftui-full-causes holds everything swiftui-causes does (tracesvc reads only one of them,
# and causes tables are the biggest part of an export).
causes=swiftui-causes
has_table swiftui-full-causes && causes=swiftui-full-causes
# CPU samples: the Time Profiler's time-profile, else the CPU Profiler's cpu-profile (in cycles;
# tracesvc never adds the two together, so one is enough).
cpu=time-profile
has_table time-profile || ! has_table cpu-profile || cpu=cpu-profile
exported=0
for schema in swiftui-updates swiftui-update-groups "$causes" swiftui-changes "$cpu" potential-hangs hitches; do
    if ! has_table "$schema"; then
        echo "  (no $schema table in run $run: tracesvc will say what is missing)"
        continue
    fi
    echo "  exporting $schema"
    xcrun xctrace export --input "$trace" --output "$work/$name/$schema.xml" \
        --xpath "/trace-toc/run[@number=\"$run\"]/data/table[@schema=\"$schema\"]"
    exported=$((exported + 1))
done
# The Swift Tasks instrument's tables (Main Actor lanes), when the recording has them.
for schema in SwiftTaskStateTable SwiftTasksInfoTable SwiftTaskLifetime; do
    has_table "$schema" || continue
    echo "  exporting $schema"
    xcrun xctrace export --input "$trace" --output "$work/$name/$schema.xml" \
        --xpath "/trace-toc/run[@number=\"$run\"]/data/table[@schema=\"$schema\"]"
done
# Instruments 27: the layout pass (SwiftUILayoutUpdates2 has the depth too and the same rows as
# swiftui-layout-updates, which 26 writes alone: one of them), and the hang risks. Without
# swiftui-updates, its rows filtered by kind (SwiftUIFilteredUpdates: three tables, one query).
layout=swiftui-layout-updates
has_table SwiftUILayoutUpdates2 && layout=SwiftUILayoutUpdates2
extra="$layout hang-risks"
has_table swiftui-updates || extra="$extra SwiftUIFilteredUpdates"
for schema in $extra; do
    has_table "$schema" || continue
    echo "  exporting $schema"
    xcrun xctrace export --input "$trace" --output "$work/$name/$schema.xml" \
        --xpath "/trace-toc/run[@number=\"$run\"]/data/table[@schema=\"$schema\"]"
    exported=$((exported + 1))
done
# os_signpost intervals and events, Points of Interest included (the signpost lanes), when recorded.
# os-signpost holds every begin, end and event; tracesvc pairs them into intervals.
for schema in os-signpost; do
    has_table "$schema" || continue
    echo "  exporting $schema"
    xcrun xctrace export --input "$trace" --output "$work/$name/$schema.xml" \
        --xpath "/trace-toc/run[@number=\"$run\"]/data/table[@schema=\"$schema\"]"
done
[ "$exported" -gt 0 ] || { echo "run $run of $trace has none of the tables tracesvc reads (record with the SwiftUI template)" >&2; exit 1; }

# COPYFILE_DISABLE: no AppleDouble "._*" files for extended attributes in the archive.
COPYFILE_DISABLE=1 tar -C "$work" -czf "$out" "$name"
echo "wrote $out ($(du -h "$out" | cut -f1)): upload it to tracesvc"

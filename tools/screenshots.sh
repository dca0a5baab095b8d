#!/usr/bin/env bash
# Renders each main view of the workstation on the demo ledger to PNG in docs/, then every
# workspace (Review, Compare, Evaluate, Run) at 1280x720 and 1920x1080 in a real window under
# Xvfb (docs/screenshots/WORKSPACE-WxH.png, by the real-window check of tests/ui/tst_workstation),
# and the first-use walk at 1280x720 in English and German (docs/screenshots/first-use-*.png).
# Qt's offscreen platform needs no display; the picture with a video in it (Qt Multimedia draws
# into a native surface that a widget grab shows grey) is taken under Xvfb when xvfb-run is
# installed (apt-get install xvfb xauth), else skipped with a note.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/build.sh
demo="build/demo.kosmos"
build/bin/kosmos-cli demo --ledger "$demo" --workers 2 > /dev/null
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
shot() { # shot NAME [kosmos options...]
    local name="$1"
    shift
    QT_QPA_PLATFORM=offscreen build/bin/kosmos "$@" --screenshot "docs/$name.png"
    echo "wrote docs/$name.png"
}
# Run 35 (confused policy, task blue_to_purple, start 14); runs 15 and 55 share its start.
shot screenshot-workstation "$demo" --run 35
shot screenshot-compare "$demo" --run 35 --compare 15
shot screenshot-workstation-de "$demo" --run 35 --language de
# Evaluation: a second judge configuration on the demo's clips (more format noise) for the
# paired audit, in a copy of the demo ledger.
rm -rf build/screenshot-eval.kosmos
cp -r "$demo" build/screenshot-eval.kosmos
cat > build/screenshot-judge.json <<'JSON'
{"plugin": "synthetic.frame_judge", "settings": {"format_noise": 0.6},
 "quorum": {"samples": 5, "quorum": 3, "temperature": 0.7, "top_p": 1.0, "max_new_tokens": 512}}
JSON
build/bin/kosmos-cli judge --all --ledger build/screenshot-eval.kosmos \
    --judge build/screenshot-judge.json > /dev/null
for tab in 0 1 2; do
    name=(calibration audit ranking)
    shot "screenshot-${name[$tab]}" build/screenshot-eval.kosmos --run 35 --raise evaluation \
        --evaluation-tab "$tab"
done
# The evaluation record of the same ledger, as kosmos-cli renders it (the start of the document).
build/bin/kosmos-cli report build/screenshot-eval.kosmos --audit 1,2 \
    --png docs/screenshot-record.png > /dev/null 2>&1
echo "wrote docs/screenshot-record.png"
shot screenshot-launcher "$demo" --dialog launcher --protocol examples/tabletop-demo.json
shot screenshot-plugins "$demo" --dialog plugins

# A LeRobot dataset's episodes imported as recorded runs (the v3.0 fixture LeRobot itself wrote):
# frames, action and observation.state traces, the imported success label.
rm -rf build/screenshot-lerobot.kosmos
build/bin/kosmos-cli init build/screenshot-lerobot.kosmos > /dev/null
build/bin/kosmos-cli import --lerobot tests/fixtures/lerobot/pusht-h264 \
    --ledger build/screenshot-lerobot.kosmos > /dev/null
shot screenshot-lerobot build/screenshot-lerobot.kosmos --run 2

# A batch running in worker processes, followed by the progress dock (the workstation picks up
# a batch that is still running when it opens the ledger).
rm -rf build/screenshot-progress.kosmos
build/bin/kosmos-cli init build/screenshot-progress.kosmos > /dev/null
build/bin/kosmos-cli run examples/tabletop-demo.json --ledger build/screenshot-progress.kosmos \
    --workers 2 --isolate > /dev/null 2>&1 &
batch=$!
sleep 3
shot screenshot-progress build/screenshot-progress.kosmos --run 1
kill -TERM "$batch" 2> /dev/null || true
wait "$batch" 2> /dev/null || true

# An imported episode with a reference recording beside its frames. The demo has no real camera:
# the "reference" here is the video of run 15 (another synthetic rollout of the same start), a
# stand-in that shows the pane, not evidence of anything.
work="build/screenshot-import"
rm -rf "$work" build/screenshot-import.kosmos
build/bin/kosmos-cli export "$demo" 35 --to "$work/a" > /dev/null
build/bin/kosmos-cli export "$demo" 15 --to "$work/b" --video > /dev/null
mkdir -p "$work/episode"
cp -r "$work/a/frames" "$work/a/actions.csv" "$work/episode/"
cp "$work/b/rollout.mp4" "$work/episode/reference.mp4"
cat > "$work/episode/import.json" <<'JSON'
{"task": "blue_to_purple", "instruction": "put the blue block in the purple square", "fps": 5,
 "source": "tools/screenshots.sh: run 35 of the demo, with run 15's video as a stand-in reference"}
JSON
build/bin/kosmos-cli init build/screenshot-import.kosmos > /dev/null
build/bin/kosmos-cli import "$work/episode" --ledger build/screenshot-import.kosmos > /dev/null
if command -v xvfb-run > /dev/null; then
    xvfb-run -a -s "-screen 0 1400x860x24" build/bin/kosmos build/screenshot-import.kosmos \
        --run 1 --frame 25 --screenshot docs/screenshot-reference.png
    echo "wrote docs/screenshot-reference.png (Xvfb)"
else
    echo "xvfb-run not installed: docs/screenshot-reference.png not refreshed"
fi

# Every workspace at two screen sizes, in a real window under Xvfb.
if command -v Xvfb > /dev/null; then
    cmake --build build --target tst_workstation > /dev/null
    mkdir -p docs/screenshots
    for size in 1280x720 1920x1080; do
        KOSMOS_SCREENSHOTS_DIR="$PWD/docs/screenshots" tests/ui/real-window.sh "$size" \
            build/tests/tst_workstation realWindowFitsTheScreenInEveryWorkspace > /dev/null
        echo "wrote docs/screenshots/*-$size.png (Xvfb)"
    done
    # The first-use walk (empty ledger, New batch, physics world, shipped policy, run, review)
    # at 1280x720, in English and in German.
    KOSMOS_SCREENSHOTS_DIR="$PWD/docs/screenshots" tests/ui/real-window.sh 1280x720 \
        build/tests/tst_workstation firstUseRunsAShippedModelFromAnEmptyLedger > /dev/null
    LANG=de_DE.UTF-8 LC_ALL=de_DE.UTF-8 LANGUAGE=de KOSMOS_SCREENSHOTS_DIR="$PWD/docs/screenshots" \
        tests/ui/real-window.sh 1280x720 build/tests/tst_workstation \
        firstUseRunsAShippedModelFromAnEmptyLedger > /dev/null
    echo "wrote docs/screenshots/first-use-*-1280x720{,-de}.png (Xvfb)"
else
    echo "Xvfb not installed: docs/screenshots/ not refreshed"
fi

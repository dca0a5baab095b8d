#!/usr/bin/env python3
"""Fills translations/kosmos_de.ts from the table below (source text -> German).

Run after `cmake --build build --target update_translations` added new source strings; every
string must have an entry (the test `translations_complete` fails on an unfinished one).
"""
import sys
import xml.etree.ElementTree as ET

DE = {
    "Against recordings...":
        "Gegen Aufzeichnungen...",
    "Replay a LeRobot dataset's recorded actions open loop in a world model and compare its frames with the recorded ones (kosmos-cli fidelity replay)":
        "Die aufgezeichneten Aktionen eines LeRobot-Datensatzes offen im Weltmodell abspielen und seine Frames mit den aufgezeichneten vergleichen (kosmos-cli fidelity replay)",
    "A LeRobot dataset whose recorded episodes the world model replays":
        "Ein LeRobot-Datensatz, dessen aufgezeichnete Episoden das Weltmodell abspielt",
    "The world model's configuration ({\"plugin\", \"settings\"})":
        "Die Konfiguration des Weltmodells ({\"plugin\", \"settings\"})",
    "JSON (*.json)":
        "JSON (*.json)",
    "Replaying the recorded episodes of %1 in the world model...":
        "Die aufgezeichneten Episoden von %1 werden im Weltmodell abgespielt...",
    "kosmos-cli fidelity replay failed: %1":
        "kosmos-cli fidelity replay ist fehlgeschlagen: %1",
    "step (open-loop replay of recorded actions, against the recorded frames)":
        "Schritt (offenes Abspielen aufgezeichneter Aktionen, gegen die aufgezeichneten Frames)",
    "No replay: no episode of %1 has two frames.":
        "Kein Abspielen: Keine Episode von %1 hat zwei Frames.",
    "%1 recorded episodes of %2: PSNR %3 dB [%4, %5] after the first step, %6 dB [%7, %8] at step %9 (mean, 95% interval over episodes); how well the world model predicts recorded video, not evidence of success.":
        "%1 aufgezeichnete Episoden von %2: PSNR %3 dB [%4, %5] nach dem ersten Schritt, %6 dB [%7, %8] bei Schritt %9 (Mittel, 95-%-Intervall über Episoden); wie gut das Weltmodell aufgezeichnetes Video vorhersagt, kein Beleg für Erfolg.",
    "PSNR (dB), 95% band":
        "PSNR (dB), 95-%-Band",
    "SSIM, 95% band":
        "SSIM, 95-%-Band",
    "Camera:": "Kamera:",
    "Filter episodes (task, index, outcome)":
        "Episoden filtern (Aufgabe, Index, Ergebnis)",
    "%1 of %2 episodes":
        "%1 von %2 Episoden",
    "Episodes":
        "Episoden",
    "Dataset":
        "Datensatz",
    "No dataset open: File > Open dataset..., or drop a LeRobot dataset folder on the window.":
        "Kein Datensatz geöffnet: Datei > Datensatz öffnen... oder einen LeRobot-Datensatzordner auf das Fenster ziehen.",
    "%1 episodes":
        "%1 Episoden",
    "All cameras, side by side":
        "Alle Kameras nebeneinander",
    "<b>%1</b><br>LeRobot %2, robot %3, %4 fps<br>%5 episodes, %6 frames, %7 tasks<br>Cameras: %8<br><br><b>Features</b><br>%9<br><br>Recorded data, read in place: nothing is written. To judge, label, evaluate or train on these episodes, import them as recorded runs:<br><tt>%10</tt>":
        "<b>%1</b><br>LeRobot %2, Roboter %3, %4 fps<br>%5 Episoden, %6 Frames, %7 Aufgaben<br>Kameras: %8<br><br><b>Merkmale</b><br>%9<br><br>Aufgezeichnete Daten, an Ort und Stelle gelesen: Es wird nichts geschrieben. Um diese Episoden zu bewerten, zu labeln, auszuwerten oder darauf zu trainieren, importieren Sie sie als aufgezeichnete Läufe:<br><tt>%10</tt>",
    "Episode %1: %2":
        "Episode %1: %2",
    "Episode %1 of a recorded dataset (read-only, not a generated rollout): %2 frames, \"%3\"":
        "Episode %1 eines aufgezeichneten Datensatzes (nur lesend, kein generiertes Rollout): %2 Frames, \"%3\"",
    "No episode with frames is shown":
        "Keine Episode mit Frames wird angezeigt",
    "Episode %1: %2 frames (%3) and values.csv written to %4%5":
        "Episode %1: %2 Frames (%3) und values.csv nach %4 geschrieben%5",
    ", video %1":
        ", Video %1",
    "Cannot export episode %1: %2":
        "Episode %1 kann nicht exportiert werden: %2",
    "Choose an episode first":
        "Wählen Sie zuerst eine Episode",
    "Export episode %1 to a folder":
        "Episode %1 in einen Ordner exportieren",
    "The dataset keeps no per-episode statistics for %1":
        "Der Datensatz führt keine Statistik je Episode für %1",
    "Episode":
        "Episode",
    "Frames":
        "Frames",
    "Seconds":
        "Sekunden",
    "%1: its maximum over the episode, from the dataset's own statistics":
        "%1: sein Maximum über die Episode, aus der eigenen Statistik des Datensatzes",
    "Open a ledger or a LeRobot dataset: File > Open, drag a NAME.kosmos or dataset folder here, or pass it on the command line.":
        "Öffnen Sie ein Ledger oder einen LeRobot-Datensatz: Datei > Öffnen, einen NAME.kosmos- oder Datensatzordner hierher ziehen oder ihn auf der Kommandozeile angeben.",
    "&Dataset":
        "&Datensatz",
    "A LeRobot dataset's episodes, cameras and traces, read in place (File > Open dataset...)":
        "Episoden, Kameras und Verläufe eines LeRobot-Datensatzes, an Ort und Stelle gelesen (Datei > Datensatz öffnen...)",
    "Open &dataset...":
        "&Datensatz öffnen...",
    "Open a LeRobot dataset (a folder with meta/info.json)":
        "Einen LeRobot-Datensatz öffnen (ein Ordner mit meta/info.json)",
    "Export the shown e&pisode...":
        "Die angezeigte E&pisode exportieren...",
    "Cannot open dataset":
        "Datensatz kann nicht geöffnet werden",
    "%1 (dataset) - Kosmos Workstation":
        "%1 (Datensatz) - Kosmos Workstation",
    "%1: LeRobot %2 dataset, %3 episodes; read in place, read-only (import episodes to evaluate them)":
        "%1: LeRobot-Datensatz %2, %3 Episoden; an Ort und Stelle gelesen, nur lesend (Episoden importieren, um sie auszuwerten)",
    "%1 (%2)": "%1 (%2)",
    "None of the chosen plugins can use CUDA (only libtorch plugins of a CUDA build can); they run on the CPU.":
        "Keines der gewählten Plugins kann CUDA nutzen (nur libtorch-Plugins eines CUDA-Builds können es); sie laufen auf der CPU.",
    "No plugin here can use CUDA: the synthetic and physics backends run on the CPU, and no libtorch plugin is built.":
        "Kein Plugin hier kann CUDA nutzen: Die synthetischen und Physik-Backends laufen auf der CPU, und kein libtorch-Plugin ist gebaut.",
    "The libtorch plugins here were built on libtorch %1, which is CPU-only (Debian's libtorch-dev): build the cuda preset (scripts/setup-cuda.sh, docs/gpu.md) to run them on a GPU.":
        "Die libtorch-Plugins hier wurden mit libtorch %1 gebaut, das nur die CPU kennt (Debians libtorch-dev): Bauen Sie das Preset cuda (scripts/setup-cuda.sh, docs/gpu.md), um sie auf einer GPU auszuführen.",
    "The libtorch plugins can use CUDA, but here: %1.": "Die libtorch-Plugins können CUDA nutzen, aber hier: %1.",
    "cuda:%1 - %2 (%3 GiB free of %4)": "cuda:%1 - %2 (%3 GiB von %4 frei)",
    "Sets the device of every CUDA-capable adapter (torch.*) in the batch; the others run on the CPU. Check refuses a batch whose declared memory does not fit.":
        "Setzt das Gerät jedes CUDA-fähigen Adapters (torch.*) im Stapel; die übrigen laufen auf der CPU. Prüfen lehnt einen Stapel ab, dessen angegebener Speicher nicht passt.",
    ", cuda:%1 %2 MiB": ", cuda:%1 %2 MiB",
    "worker %1: %2, RSS %3 MiB%4": "Worker %1: %2, RSS %3 MiB%4",
    "Imagined runs without a verdict; of them, rollouts that failed validation and were never judged":
        "Vorgestellte Läufe ohne Urteil; davon Rollouts, die die Validierung nicht bestanden und nie bewertet wurden",
    "physics success rate (simulator state)": "Erfolgsrate in der Physik (Simulatorzustand)",
    "world-model success rate (judged)": "Erfolgsrate im Weltmodell (bewertet)",
    "PSNR (dB)": "PSNR (dB)",
    "SSIM": "SSIM",
    "step (open-loop replay of physics actions)": "Schritt (Wiedergabe der Physik-Aktionen ohne Rückkopplung)",
    "Fidelity": "Treue",
    "Compare frames (kosmos-cli)": "Bilder vergleichen (kosmos-cli)",
    "Physics protocol (ground truth)": "Physik-Protokoll (Grundwahrheit)",
    "Imagined protocol (world model, judged)": "Vorgestelltes Protokoll (Weltmodell, bewertet)",
    "#": "#",
    "Policy": "Policy",
    "Physics (Wilson 95%)": "Physik (Wilson 95 %)",
    "World model (Wilson 95%)": "Weltmodell (Wilson 95 %)",
    "Unknown": "Unbekannt",
    "Lenient / harsh": "Nachsichtig / streng",
    "Physics starts whose actions are replayed open loop in the world model (kosmos-cli fidelity --replays)":
        "Physik-Starts, deren Aktionen ohne Rückkopplung im Weltmodell wiedergegeben werden (kosmos-cli fidelity --replays)",
    "Open-loop replays:": "Wiedergaben ohne Rückkopplung:",
    "Fidelity compares two protocols of this ledger: policies in the physics world and the same policies from the same starts in a learned world model (kosmos-cli fidelity prepare; docs/fidelity.md).":
        "Die Treue vergleicht zwei Protokolle dieses Ledgers: Policies in der Physik-Welt und dieselben Policies von denselben Starts in einem gelernten Weltmodell (kosmos-cli fidelity prepare; docs/fidelity.md).",
    "<b>%1 paired episodes</b> (same policy, same start); unpaired %2 physics, %3 imagined.<br>Across the policies with a rate in both worlds, 95% bootstrap over starts (%4 replicates): <b>Pearson %5</b>, Spearman %6, <b>MMRV %7</b> (lower is better). Anchors: WorldGym r = 0.78; SC3-Eval Pearson 0.929, MMRV 0.119.<br>Pairwise orders: %8 the same, %9 opposite, %10 indeterminate in a world.<br>Per episode: agreement %11 (n = %12), world-model success when physics failed %13, failure when physics succeeded %14.<br><i>Both worlds are simulations: this is agreement with a physics reference, not evidence of real robot-task success.</i>":
        "<b>%1 gepaarte Episoden</b> (gleiche Policy, gleicher Start); ungepaart %2 Physik, %3 vorgestellt.<br>Über die Policies mit einer Rate in beiden Welten, 95-%-Bootstrap über Starts (%4 Wiederholungen): <b>Pearson %5</b>, Spearman %6, <b>MMRV %7</b> (kleiner ist besser). Vergleichswerte: WorldGym r = 0,78; SC3-Eval Pearson 0,929, MMRV 0,119.<br>Paarweise Reihenfolgen: %8 gleich, %9 umgekehrt, %10 in einer Welt unbestimmt.<br>Je Episode: Übereinstimmung %11 (n = %12), Erfolg im Weltmodell bei Misserfolg in der Physik %13, Misserfolg bei Erfolg in der Physik %14.<br><i>Beide Welten sind Simulationen: dies ist Übereinstimmung mit einer Physik-Referenz, kein Nachweis für echten Erfolg eines Roboters.</i>",
    "Cannot compare these protocols: %1": "Diese Protokolle lassen sich nicht vergleichen: %1",
    "Replaying %1 starts in the world model...": "%1 Starts werden im Weltmodell wiedergegeben ...",
    "kosmos-cli fidelity failed: %1": "kosmos-cli fidelity ist fehlgeschlagen: %1",
    "No replay: no paired physics episode with frames and actions.": "Keine Wiedergabe: keine gepaarte Physik-Episode mit Bildern und Aktionen.",
    "%1 replays: PSNR %2 dB after the first step, %3 dB at step %4; SSIM %5 -> %6.":
        "%1 Wiedergaben: PSNR %2 dB nach dem ersten Schritt, %3 dB bei Schritt %4; SSIM %5 -> %6.",
    "The synthetic backends run on the CPU. A libtorch adapter (torch.*) has its own device setting (cpu, cuda): set it in the adapter's settings; an adapter whose libtorch has no CUDA refuses cuda with the reason (Run > Plugins).":
        "Die synthetischen Backends laufen auf der CPU. Ein libtorch-Adapter (torch.*) hat eine eigene Geräte-Einstellung (cpu, cuda): setzen Sie sie in den Einstellungen des Adapters; ein Adapter, dessen libtorch kein CUDA hat, lehnt cuda mit Begründung ab (Ausführen > Plugins).",
    "no policy image yet": "noch kein Bild der Policy",
    "The policy's %1, made at step %2: generated by the policy's model, not observed":
        "%1 der Policy, erzeugt in Schritt %2: vom Modell der Policy generiert, nicht beobachtet",
    "Decisive (Wilson 95%)": "Entschieden (Wilson 95 %)",
    "Missing": "Fehlend",
    "Worst / best case": "Schlechtester / bester Fall",
    "Reference rates...": "Referenzraten ...",
    "Export evaluation record...": "Evaluationsbericht exportieren ...",
    "The chosen protocol's record as HTML (plots embedded) and PDF: protocol hash, components, rates with n and intervals, calibration and gate, the audit, and what the numbers do and do not support.":
        "Der Bericht des gewählten Protokolls als HTML (mit eingebetteten Diagrammen) und PDF: Protokoll-Hash, Komponenten, Raten mit n und Intervallen, Kalibrierung und Schwelle, das Audit und was die Zahlen belegen und was nicht.",
    "Annotator agreement:": "Übereinstimmung der Annotatoren:",
    "held-out clips": "zurückgehaltene Clips",
    "development clips": "Entwicklungs-Clips",
    "all clips": "alle Clips",
    'A CSV of "policy,rate" lines, e.g. real-robot success rates: Pearson, Spearman and MMRV against the rates here.':
        'Eine CSV-Datei mit Zeilen "policy,rate", z. B. Erfolgsraten echter Roboter: Pearson, Spearman und MMRV gegen die Raten hier.',
    "No reference rates loaded.": "Keine Referenzraten geladen.",
    "%1 (%2 clips)": "%1 (%2 Clips)",
    "%1 episodes with a decisive outcome, %2 without (left out of the rates and counted here; the worst / best case per cell counts them as failures / successes). An order is stated only when the task-stratified lineage bootstrap (2,000 replicates, seeded) and the Clopper-Pearson bounds both separate the pair. These are rollouts in a generated or synthetic world, not evidence of real robot-task success.":
        "%1 Episoden mit eindeutigem Ergebnis, %2 ohne (nicht in den Raten, hier gezählt; der schlechteste / beste Fall je Zelle zählt sie als Misserfolge / Erfolge). Eine Reihenfolge wird nur angegeben, wenn der aufgabenweise geschichtete Bootstrap über Startlinien (2.000 Wiederholungen, mit festem Seed) und die Clopper-Pearson-Grenzen das Paar beide trennen. Dies sind Rollouts in einer generierten oder synthetischen Welt, kein Nachweis für echten Erfolg eines Roboters.",
    "%1: %2 matched, %3 unmatched. Pearson %4, Spearman %5, MMRV %6 (n = %7).":
        "%1: %2 zugeordnet, %3 nicht zugeordnet. Pearson %4, Spearman %5, MMRV %6 (n = %7).",
    "Agreement between annotators needs two people who labelled the same clips (%1 annotator(s) here).":
        "Die Übereinstimmung von Annotatoren braucht zwei Personen, die dieselben Clips bewertet haben (hier %1 Annotator(en)).",
    "%1 clips labelled by both: completion agreement %2, kappa %3 (n = %4); progress weighted kappa %5 (n = %6); %7 disagreement(s).":
        "%1 Clips von beiden bewertet: Übereinstimmung beim Abschluss %2, Kappa %3 (n = %4); gewichtetes Kappa des Fortschritts %5 (n = %6); %7 Abweichung(en).",
    "Reference success rates": "Referenz-Erfolgsraten",
    "CSV files (*.csv);;All files (*)": "CSV-Dateien (*.csv);;Alle Dateien (*)",
    "No protocol with rollouts in this ledger: nothing to report.":
        "Kein Protokoll mit Rollouts in diesem Ledger: nichts zu berichten.",
    "Export evaluation record": "Evaluationsbericht exportieren",
    "HTML (*.html)": "HTML (*.html)",
    "Evaluation record written:\n%1\n%2": "Evaluationsbericht geschrieben:\n%1\n%2",
    "Could not export the evaluation record: %1": "Der Evaluationsbericht konnte nicht exportiert werden: %1",
    "human label success rate": "Erfolgsrate der menschlichen Bewertungen",
    "reference label success rate": "Erfolgsrate der Referenzbewertungen",
    "share of answers": "Anteil der Antworten",
    "reference success rate": "Referenz-Erfolgsrate",
    "success rate here": "Erfolgsrate hier",
    "libtorch: no installed plugin uses it": "libtorch: kein installiertes Plugin verwendet es",
    "libtorch %1: used by %2 (loaded only when one of them runs)":
        "libtorch %1: verwendet von %2 (nur geladen, wenn eines davon läuft)",
    "plugins found: %1": "gefundene Plugins: %1",
    "Remove": "Entfernen",
    "Press B in the player to bookmark the current frame":
        "B im Player drücken, um das aktuelle Bild als Lesezeichen zu speichern",
    "frame %1  %2": "Bild %1  %2",
    "no judgment": "kein Urteil",
    "judge: %1": "Richter: %1",
    "<b>Run %1</b> %2 - %3, validation %4": "<b>Lauf %1</b> %2 - %3, Validierung %4",
    "Seq": "Nr.",
    "Time (UTC)": "Zeit (UTC)",
    "Attempt": "Versuch",
    "Type": "Typ",
    "Payload": "Inhalt",
    "run": "Lauf",
    "Loop": "Schleife",
    "Play": "Abspielen",
    "Play / pause (Space)": "Abspielen / Pause (Leertaste)",
    "Fit": "Einpassen",
    "Zoom: fit to the view (0), true size (1), in (+) and out (-); Ctrl+wheel zooms, dragging pans":
        "Zoom: einpassen (0), Originalgröße (1), vergrößern (+) und verkleinern (-); "
        "Strg+Mausrad zoomt, Ziehen verschiebt",
    "Reference recording (as imported; not generated)":
        "Referenzaufnahme (wie importiert; nicht generiert)",
    "Imported video, as given (the frames on the left are decoded from it)":
        "Importiertes Video, unverändert (die Bilder links sind daraus dekodiert)",
    "no frames": "keine Bilder",
    "frame %1 / %2": "Bild %1 / %2",
    "Pause": "Pause",
    "no frame": "kein Bild",
    "Kosmos Workstation": "Kosmos Workstation",
    "Runs": "Läufe",
    "Verdicts": "Urteile",
    "Provenance": "Herkunft",
    "Bookmarks": "Lesezeichen",
    "Events": "Ereignisse",
    "Compare": "Vergleich",
    "Bookmark this frame": "Lesezeichen für dieses Bild",
    "Bookmark": "Lesezeichen",
    "Name:": "Name:",
    "&File": "&Datei",
    "&Open ledger...": "Ledger ö&ffnen...",
    "Open a ledger bundle (NAME.kosmos)": "Ein Ledger-Bündel öffnen (NAME.kosmos)",
    "Open &recent": "&Zuletzt geöffnet",
    "&Export current run...": "Aktuellen Lauf &exportieren...",
    "Export frames, actions and video to": "Bilder, Aktionen und Video exportieren nach",
    "&Settings...": "&Einstellungen...",
    "&Quit": "&Beenden",
    "&View": "&Ansicht",
    "&Compare with run...": "Mit Lauf &vergleichen...",
    "Compare run %1 with run:": "Lauf %1 vergleichen mit Lauf:",
    "&Help": "&Hilfe",
    "&About Kosmos": "&Über Kosmos",
    "Open a ledger: File > Open, drag a NAME.kosmos folder here, or pass it on the command line.":
        "Ein Ledger öffnen: Datei > Öffnen, einen NAME.kosmos-Ordner hierher ziehen oder ihn auf "
        "der Kommandozeile angeben.",
    "%1 - Kosmos Workstation": "%1 - Kosmos Workstation",
    "%1: %2 runs, %3 artifacts; opened read-only (review never writes to the ledger)":
        "%1: %2 Läufe, %3 Artefakte; schreibgeschützt geöffnet (die Durchsicht schreibt nie in "
        "das Ledger)",
    "Cannot open %1: %2": "%1 kann nicht geöffnet werden: %2",
    "Cannot open ledger": "Ledger kann nicht geöffnet werden",
    "run %1: %2 frames, %3 actions%4": "Lauf %1: %2 Bilder, %3 Aktionen%4",
    ", validation %1": ", Validierung %1",
    "run %1 cannot be shown completely: %2":
        "Lauf %1 kann nicht vollständig angezeigt werden: %2",
    "Cannot compare: %1": "Vergleich nicht möglich: %1",
    "Exporting run %1...": "Lauf %1 wird exportiert...",
    "Cancel": "Abbrechen",
    "Export cancelled after %1 frames": "Export nach %1 Bildern abgebrochen",
    "Exported %1 frames and %2 actions to %3": "%1 Bilder und %2 Aktionen nach %3 exportiert",
    "Export failed: %1": "Export fehlgeschlagen: %1",
    "The bookmark was not saved (the ledger cannot be written): %1":
        "Das Lesezeichen wurde nicht gespeichert (das Ledger ist nicht beschreibbar): %1",
    "<b>Kosmos Workstation %1</b><br>Auditable evaluation of robot policies through learned world "
    "models.<br><br>Qt %2<br>SQLite %3<br>OpenCV %4<br>FFmpeg libavformat %5, libavcodec %6":
        "<b>Kosmos Workstation %1</b><br>Nachprüfbare Bewertung von Roboter-Policies in gelernten "
        "Weltmodellen.<br><br>Qt %2<br>SQLite %3<br>OpenCV %4<br>FFmpeg libavformat %5, "
        "libavcodec %6",
    "About Kosmos": "Über Kosmos",
    "Verify artifacts": "Artefakte prüfen",
    "Item": "Eintrag",
    "Value": "Wert",
    "Detail": "Detail",
    "Run %1": "Lauf %1",
    "protocol %1": "Protokoll %1",
    "Components": "Komponenten",
    "config %1, weights %2": "Konfiguration %1, Gewichte %2",
    "Attempts": "Versuche",
    "attempt %1 (%2)": "Versuch %1 (%2)",
    "started": "begonnen",
    "finished": "beendet",
    "%1 s": "%1 s",
    "seal": "Siegel",
    "timings": "Zeiten",
    "%1 ms total": "%1 ms gesamt",
    "device %1, peak RSS %2 MiB": "Gerät %1, maximaler RSS %2 MiB",
    "%1 ms": "%1 ms",
    "Artifacts of the latest attempt (%1)": "Artefakte des letzten Versuchs (%1)",
    "%1 bytes, %2": "%1 Bytes, %2",
    "sha256 %1, pixels %2": "sha256 %1, Pixel %2",
    "derived": "abgeleitet",
    "%1 of %2 artifacts FAILED verification": "%1 von %2 Artefakten haben die Prüfung NICHT bestanden",
    "all %1 artifacts verified": "alle %1 Artefakte geprüft",
    "Reference label from a world that knows its true state (synthetic). Not a human label.":
        "Referenzlabel aus einer Welt, die ihren wahren Zustand kennt (synthetisch). Kein "
        "menschliches Label.",
    "Run": "Lauf",
    "Task": "Aufgabe",
    "Policy": "Policy",
    "World model": "Weltmodell",
    "Judge": "Richter",
    "Validation": "Validierung",
    "Reference": "Referenz",
    "Human": "Mensch",
    "Status": "Status",
    "Duration": "Dauer",
    "any status": "jeder Status",
    "any judge outcome": "jedes Richterurteil",
    "any validation": "jede Validierung",
    "policy": "Policy",
    "world model": "Weltmodell",
    "any reference label": "jedes Referenzlabel",
    "any human label": "jedes menschliche Label",
    "Reference labels come from a world that knows its true state (synthetic); they are not human labels":
        "Referenzlabels stammen aus einer Welt, die ihren wahren Zustand kennt (synthetisch); "
        "sie sind keine menschlichen Labels",
    "any protocol": "jedes Protokoll",
    "search task / instruction": "Aufgabe / Anweisung suchen",
    "%1 runs shown (%2 loaded)": "%1 Läufe angezeigt (%2 geladen)",
    "Settings": "Einstellungen",
    "one folder per line": "ein Ordner pro Zeile",
    "Extra plugin folders": "Zusätzliche Plugin-Ordner",
    "Workers for new runs": "Worker für neue Läufe",
    "System language": "Systemsprache",
    "Takes effect when the workstation next starts": "Wirkt beim nächsten Start der Workstation",
    "Language": "Sprache",
    "frame": "Bild",
    "Judgment / sample": "Urteil / Stichprobe",
    "Outcome / format": "Ergebnis / Format",
    "Progress": "Fortschritt",
    "Tokens": "Tokens",
    "Decode ms": "Dekodierung ms",
    "Evidence frames": "Belegbilder",
    "Raw text": "Rohtext",
    "Human label": "Menschliches Label",
    "Reference label (synthetic ground truth, not a human)":
        "Referenzlabel (synthetische Grundwahrheit, kein Mensch)",
    "No reference or human label.": "Kein Referenz- oder menschliches Label.",
    "<b>%1</b> (%2): %3, progress %4": "<b>%1</b> (%2): %3, Fortschritt %4",
    "Judgment %1 - %2%3": "Urteil %1 - %2%3",
    " (re-judged)": " (neu beurteilt)",
    "sample %1%2 (seed %3)": "Stichprobe %1%2 (Seed %3)",
    " retry": " Wiederholung",
    'Start': 'Starten',
    'New batch': 'Neuer Stapel',
    'closed loop (the policy sees predicted frames)': 'geschlossene Schleife (die Policy sieht vorhergesagte Bilder)',
    'open loop (the policy sees the start frame only)': 'offene Schleife (die Policy sieht nur das Startbild)',
    'Task id': 'Aufgaben-ID',
    'Instruction': 'Anweisung',
    'Start state (JSON)': 'Startzustand (JSON)',
    'Protocol': 'Protokoll',
    'Name': 'Name',
    'Seed': 'Seed',
    'Horizon (steps)': 'Horizont (Schritte)',
    'Episodes per task': 'Episoden pro Aufgabe',
    'Feedback': 'Rückkopplung',
    'Add task': 'Aufgabe hinzufügen',
    'Remove task': 'Aufgabe entfernen',
    'Policies': 'Policies',
    'Plugin': 'Plugin',
    'Add policy': 'Policy hinzufügen',
    'Remove policy': 'Policy entfernen',
    'World model and judge': 'Weltmodell und Richter',
    'Judge samples / quorum': 'Richter-Stichproben / Quorum',
    'Device': 'Gerät',
    'Worker processes': 'Worker-Prozesse',
    'CPU': 'CPU',
    'No CUDA device: no installed plugin uses a CUDA-enabled libtorch. Adapters that need one say why in Run > Plugins.': 'Kein CUDA-Gerät: kein installiertes Plugin verwendet ein libtorch mit CUDA. Adapter, die eines brauchen, nennen den Grund unter Ausführen > Plugins.',
    'Load...': 'Laden...',
    'Save...': 'Speichern...',
    'Check': 'Prüfen',
    'Load a protocol': 'Ein Protokoll laden',
    'Protocols (*.json)': 'Protokolle (*.json)',
    '%1 is not a JSON object': '%1 ist kein JSON-Objekt',
    'Save the protocol': 'Das Protokoll speichern',
    '(none)': '(keiner)',
    '%1 (unavailable: %2)': '%1 (nicht verfügbar: %2)',
    'task %1: the start state is not valid JSON': 'Aufgabe %1: der Startzustand ist kein gültiges JSON',
    'policy %1 settings: %2': 'Einstellungen von Policy %1: %2',
    'world model settings: %1': 'Einstellungen des Weltmodells: %1',
    'judge settings: %1': 'Einstellungen des Richters: %1',
    'refused: %1': 'abgelehnt: %1',
    '%1 runs; %2 already finished in this ledger, %3 to run. Generated rollouts are not evidence of real robot-task success.': '%1 Läufe; %2 in diesem Ledger bereits beendet, %3 auszuführen. Generierte Rollouts sind kein Beleg für echten Erfolg eines Roboters bei der Aufgabe.',
    '%1 runs (policies x tasks x episodes). Check to see how many this ledger already finished.': '%1 Läufe (Policies x Aufgaben x Episoden). Prüfen zeigt, wie viele dieses Ledger bereits beendet hat.',
    '&Run': 'A&usführen',
    'kosmos-cli, the engine that runs rollouts, was not found': 'kosmos-cli, die Engine, die Rollouts ausführt, wurde nicht gefunden',
    'Batch progress': 'Fortschritt des Stapels',
    '&New batch...': '&Neuer Stapel...',
    'Open or create a ledger first (kosmos-cli init NAME.kosmos).': 'Zuerst ein Ledger öffnen oder anlegen (kosmos-cli init NAME.kosmos).',
    '&Plugins...': '&Plugins...',
    '&Cancel batch': 'Stapel &abbrechen',
    'Runs are still going': 'Läufe sind noch aktiv',
    'A batch is still running in worker processes. Cancel its runs, or leave them running (the next launch shows their progress)?': 'Ein Stapel läuft noch in Worker-Prozessen. Seine Läufe abbrechen oder weiterlaufen lassen (der nächste Start zeigt ihren Fortschritt)?',
    'Cancel the runs': 'Die Läufe abbrechen',
    'Leave them running': 'Weiterlaufen lassen',
    "Don't close": 'Nicht schließen',
    'cannot list plugins with %1: %2': 'Plugins können mit %1 nicht aufgelistet werden: %2',
    'kosmos-cli plugins --json printed something that is not a JSON list': 'kosmos-cli plugins --json gab etwas aus, das keine JSON-Liste ist',
    'the test process ended abnormally: ': 'der Testprozess endete abnormal: ',
    'Test once': 'Einmal testen',
    'Plugins': 'Plugins',
    'Family': 'Familie',
    'Version': 'Version',
    'API': 'API',
    'Requires': 'Benötigt',
    'Available': 'Verfügbar',
    'Reason / file': 'Grund / Datei',
    'Test once runs one step of the selected adapter, with the settings above, in a process of its own, and shows its timing and memory. It is a smoke test: it says nothing about whether a policy succeeds at a task.': 'Einmal testen führt einen Schritt des gewählten Adapters mit den Einstellungen oben in einem eigenen Prozess aus und zeigt Zeit und Speicher. Es ist ein Rauchtest: er sagt nichts darüber, ob eine Policy eine Aufgabe löst.',
    'Rescan': 'Neu suchen',
    'Settings for the test:': 'Einstellungen für den Test:',
    'testing %1 ...': '%1 wird getestet ...',
    '%1: one step ok': '%1: ein Schritt in Ordnung',
    '%1: FAILED': '%1: FEHLGESCHLAGEN',
    'error: %1': 'Fehler: %1',
    'created in %1 ms': 'erzeugt in %1 ms',
    'one step in %1 ms': 'ein Schritt in %1 ms',
    'peak memory (RSS) %1 MiB': 'maximaler Speicher (RSS) %1 MiB',
    'A smoke test of the adapter only: not evidence of robot-task success.': 'Nur ein Rauchtest des Adapters: kein Beleg für Erfolg eines Roboters bei einer Aufgabe.',
    'nothing': 'nichts',
    'available': 'verfügbar',
    'UNAVAILABLE': 'NICHT VERFÜGBAR',
    'Cancel run': 'Lauf abbrechen',
    'Cancel batch': 'Stapel abbrechen',
    'Stage': 'Phase',
    'Steps': 'Schritte',
    'Worker': 'Worker',
    'No batch running. Run > New batch... starts one.': 'Kein Stapel aktiv. Ausführen > Neuer Stapel... startet einen.',
    '<b>%1</b> (%2)': '<b>%1</b> (%2)',
    '%1 of %2 runs finished (%p% of steps)': '%1 von %2 Läufen beendet (%p% der Schritte)',
    '%1 completed, %2 failed, %3 cancelled, %4 running, %5 queued; elapsed %6%7': '%1 abgeschlossen, %2 fehlgeschlagen, %3 abgebrochen, %4 laufend, %5 wartend; vergangen %6%7',
    ', about %1 left': ', noch etwa %1',
    ' (cancelling)': ' (wird abgebrochen)',
    'cannot save the protocol to %1: %2': 'das Protokoll kann nicht nach %1 gespeichert werden: %2',
    'open a ledger first': 'zuerst ein Ledger öffnen',
    'cannot start %1: %2': '%1 kann nicht gestartet werden: %2',
    'This plugin has no settings.': 'Dieses Plugin hat keine Einstellungen.',
    'CPU %1%': 'CPU %1%',
    'CPU -': 'CPU -',
    'worker %1: %2, RSS %3 MiB': 'Worker %1: %2, RSS %3 MiB',
    '. GPU: not reported (no CUDA-enabled plugin is running; NVML is not used).': '. GPU: nicht gemeldet (kein Plugin mit CUDA läuft; NVML wird nicht verwendet).',
    'n = 0 (no rate)': 'n = 0 (keine Rate)',
    'Metric': 'Kennzahl',
    'A': 'A',
    'B': 'B',
    'Field': 'Feld',
    'Success (Wilson 95%)': 'Erfolg (Wilson 95%)',
    'n': 'n',
    'Pair': 'Paar',
    'Order': 'Reihenfolge',
    'Bootstrap difference': 'Bootstrap-Differenz',
    'Exact bounds separate': 'Exakte Grenzen trennen',
    'human labels': 'menschliche Labels',
    'synthetic reference labels (NOT human)': 'synthetische Referenzlabels (NICHT menschlich)',
    'Judge configuration': 'Richter-Konfiguration',
    'Against': 'Gegen',
    'gate: labels >=': 'Schwelle: Labels >=',
    'sensitivity >=': 'Sensitivität >=',
    'specificity >=': 'Spezifität >=',
    '|leniency| <=': '|Nachsicht| <=',
    'judge success-vote share': 'Anteil der Erfolgsstimmen des Richters',
    'label success rate': 'Erfolgsrate der Labels',
    'Calibration': 'Kalibrierung',
    'Flips (double-click to open the run):': 'Umschläge (Doppelklick öffnet den Lauf):',
    'Paired audit': 'Gepaarte Prüfung',
    'judge outcomes': 'Richterurteile',
    'synthetic reference labels': 'synthetische Referenzlabels',
    "Compare with the same start in another &world": "Mit demselben Start in einer anderen &Welt vergleichen",
    "No completed run of the same instruction from the same start in another world model.": "Kein abgeschlossener Lauf derselben Anweisung vom selben Start in einem anderen Weltmodell.",
    "Run %1 beside run %2 in %3 (the same %4)": "Lauf %1 neben Lauf %2 in %3 (derselbe %4)",
    "episode seed": "Episoden-Seed",
    "recorded start state": "aufgezeichnete Startzustand",
    "%1 x/y/z [m]": "%1 x/y/z [m]",
    "%1 (written %2)": "%1 (geschrieben als %2)",
    "server model: %1": "Servermodell: %1",
    "system fingerprint: %1": "System-Fingerprint: %1",
    "request: %1": "Anfrage: %1",
    "request: not recorded": "Anfrage: nicht aufgezeichnet",
    "physics ground truth (simulator state, NOT human)": "physikalische Grundwahrheit (Simulatorzustand, NICHT menschlich)",
    "physics ground truth (simulator state)": "physikalische Grundwahrheit (Simulatorzustand)",
    "Physics ground truth (simulator state, not a human)": "Physikalische Grundwahrheit (Simulatorzustand, kein Mensch)",
    "Imported reference label (not a human of this ledger)": "Importiertes Referenzlabel (kein Mensch dieses Ledgers)",
    'Protocol (rates are never pooled across protocols)': 'Protokoll (Raten werden nie über Protokolle gemischt)',
    'Success by': 'Erfolg nach',
    'Ranking': 'Rangfolge',
    'Cannot read the judgments: %1': 'Die Urteile können nicht gelesen werden: %1',
    'No judgments in this ledger: nothing to calibrate.': 'Keine Urteile in diesem Ledger: nichts zu kalibrieren.',
    "<p style='color:#8a5a00'><b>Against synthetic reference labels</b> from a world that knows its true state: not human labels.</p>": "<p style='color:#8a5a00'><b>Gegen synthetische Referenzlabels</b> aus einer Welt, die ihren wahren Zustand kennt: keine menschlichen Labels.</p>",
    '<p>%1 labelled clips: %2 decisive pairs, %3 indecisive.</p>': '<p>%1 gelabelte Clips: %2 entschiedene Paare, %3 unentschieden.</p>',
    '<table border=1 cellpadding=3><tr><th></th><th>label success</th><th>label failure</th></tr><tr><th>judge success</th><td>%1</td><td>%2</td></tr><tr><th>judge failure</th><td>%3</td><td>%4</td></tr></table>': '<table border=1 cellpadding=3><tr><th></th><th>Label Erfolg</th><th>Label Misserfolg</th></tr><tr><th>Richter Erfolg</th><td>%1</td><td>%2</td></tr><tr><th>Richter Misserfolg</th><td>%3</td><td>%4</td></tr></table>',
    '<p>agreement %1<br>sensitivity %2<br>specificity %3<br>kappa %4 (n = %5), progress weighted kappa %6 (n = %7)<br>leniency offset %8</p>': '<p>Übereinstimmung %1<br>Sensitivität %2<br>Spezifität %3<br>Kappa %4 (n = %5), gewichtetes Kappa des Fortschritts %6 (n = %7)<br>Nachsichtsversatz %8</p>',
    '<p><b>Calibration gate: %1</b><br>': '<p><b>Kalibrierungsschwelle: %1</b><br>',
    'PASS': 'BESTANDEN',
    'FAIL': 'NICHT BESTANDEN',
    'pass': 'bestanden',
    'error': 'Fehler',
    'clips judged by both': 'von beiden beurteilte Clips',
    'schema-valid answers': 'schemagültige Antworten',
    'bare JSON answers': 'Antworten als reines JSON',
    'mean generated tokens': 'mittlere erzeugte Tokens',
    'mean decode time (ms)': 'mittlere Dekodierzeit (ms)',
    'agreement: %1': 'Übereinstimmung: %1',
    'full semantic agreement': 'volle inhaltliche Übereinstimmung',
    'exact McNemar (decisive pairs)': 'exakter McNemar-Test (entschiedene Paare)',
    'p = %1 (n = %2; %3 vs %4)': 'p = %1 (n = %2; %3 gegen %4)',
    'schema-valid': 'schemagültig',
    'bare JSON': 'reines JSON',
    'first better': 'erste besser',
    'second better': 'zweite besser',
    'indeterminate': 'unbestimmt',
    'yes': 'ja',
    'no': 'nein',
    'policy (row in the table)': 'Policy (Zeile der Tabelle)',
    'success rate, Wilson 95%': 'Erfolgsrate, Wilson 95%',
    '%1 episodes with a decisive outcome, %2 without (left out of the rates and counted here). An order is stated only when the task-stratified lineage bootstrap (2,000 replicates, seeded) and the Clopper-Pearson bounds both separate the pair. These are rollouts in a generated or synthetic world, not evidence of real robot-task success.': '%1 Episoden mit entschiedenem Ergebnis, %2 ohne (aus den Raten ausgelassen und hier gezählt). Eine Reihenfolge wird nur angegeben, wenn der nach Aufgaben geschichtete Bootstrap über Startlinien (2.000 Wiederholungen, mit Seed) und die Clopper-Pearson-Grenzen das Paar beide trennen. Dies sind Rollouts in einer generierten oder synthetischen Welt, kein Beleg für echten Erfolg eines Roboters.',
    'Evaluation': 'Bewertung',
    '&New ledger...': '&Neues Ledger...',
    'New ledger bundle (a folder NAME.kosmos)': 'Neues Ledger-Bündel (ein Ordner NAME.kosmos)',
    'Kosmos ledgers (*.kosmos)': 'Kosmos-Ledger (*.kosmos)',
    '&Evaluation (calibration, audit, ranking)': '&Bewertung (Kalibrierung, Prüfung, Rangfolge)',
    'Cannot create %1: %2': '%1 kann nicht angelegt werden: %2',
    'Blind labeling': 'Blindes Labeln',
    'Completion: M met, N not met, U uncertain. Progress: 0-5. Integrity: I intact, A artifact. Collision: C none visible, V visible. Enter saves and moves on, S skips. Frames: Left/Right, Space, Home/End.': 'Erfüllung: M erfüllt, N nicht erfüllt, U unsicher. Fortschritt: 0-5. Integrität: I intakt, A Artefakt. Kollision: C keine sichtbar, V sichtbar. Eingabe speichert und geht weiter, S überspringt. Bilder: Links/Rechts, Leertaste, Pos1/Ende.',
    'All clips done: %1 labels saved.': 'Alle Clips erledigt: %1 Labels gespeichert.',
    'Clip %1 of %2. Task: %3': 'Clip %1 von %2. Aufgabe: %3',
    'completion -, progress -, integrity -, collision -': 'Erfüllung -, Fortschritt -, Integrität -, Kollision -',
    'Completion (M/N/U) and progress (0-5) are needed before saving.': 'Vor dem Speichern werden Erfüllung (M/N/U) und Fortschritt (0-5) benötigt.',
    'saved (%1 so far)': 'gespeichert (bisher %1)',
    'completion %1, progress %2, integrity %3, collision %4': 'Erfüllung %1, Fortschritt %2, Integrität %3, Kollision %4',
    '&Label clips blind...': 'Clips blind &labeln...',
    'Annotator id:': 'Annotator-ID:',
    '%1 human labels saved': '%1 menschliche Labels gespeichert',
    'Labeling needs a writable ledger: %1': 'Labeln braucht ein beschreibbares Ledger: %1',
    '&Retry selected failed runs': 'Ausgewählte fehlgeschlagene Läufe &wiederholen',
    '%1 failed run(s) queued for a new attempt (their failed attempts stay recorded)':
        '%1 fehlgeschlagene(r) Lauf/Läufe für einen neuen Versuch eingereiht (die fehlgeschlagenen Versuche bleiben aufgezeichnet)',
    "Where it runs": "Wo es läuft",
    "This machine": "Dieser Rechner",
    "Slurm cluster (shards)": "Slurm-Cluster (Shards)",
    "One Slurm array task per shard; each writes a ledger of its own, merged into this ledger when all have ended":
        "Eine Slurm-Array-Aufgabe je Shard; jede schreibt ein eigenes Ledger, das in dieses Ledger zusammengeführt wird, wenn alle beendet sind",
    "the cluster's default": "Voreinstellung des Clusters",
    "GPUs per shard task (--gres gpu:N); 0: none requested": "GPUs je Shard-Aufgabe (--gres gpu:N); 0: keine angefordert",
    "e.g. 04:00:00 (the partition's default when empty)": "z. B. 04:00:00 (leer: Voreinstellung der Partition)",
    "Target": "Ziel",
    "Shards": "Shards",
    "Partition": "Partition",
    "GPUs per task": "GPUs je Aufgabe",
    "Time limit": "Zeitlimit",
    "\nSlurm: %1 shards: %2 done, %3 running, %4 waiting; merge job %5":
        "\nSlurm: %1 Shards: %2 fertig, %3 laufen, %4 warten; Zusammenführungs-Job %5",
    "not in the queue": "nicht in der Warteschlange",
    "shard %1: %2": "Shard %1: %2",
    "sbatch is not on PATH: this machine cannot submit to a Slurm cluster (install slurm-client and its cluster's slurm.conf)":
        "sbatch ist nicht im PATH: dieser Rechner kann nichts an einen Slurm-Cluster übergeben (installieren Sie slurm-client und die slurm.conf des Clusters)",
    "kosmos-cli submit failed: %1": "kosmos-cli submit ist fehlgeschlagen: %1",
    "cannot start %1 merge: %2": "%1 merge kann nicht gestartet werden: %2",
    "a run of a sharded batch is cancelled with its whole batch (scancel)":
        "ein Lauf eines aufgeteilten Stapels wird nur mit dem ganzen Stapel abgebrochen (scancel)",
    "host %1": "Rechner %1",
    ", Slurm job %1 (array %2, task %3)": ", Slurm-Job %1 (Array %2, Aufgabe %3)",
    "merged from": "zusammengeführt aus",
    "shard %1": "Shard %1",
    "a ledger": "einem Ledger",
    "source": "Quelle",
    "its attempt %1": "dort Versuch %1",
    "Overlay traces": "Verläufe überlagern",
    "Runs of the same instruction: from the same start first (other policies, then other world models, then repeats), then other starts":
        "Läufe derselben Anweisung: zuerst vom selben Start (andere Policies, dann andere Weltmodelle, dann Wiederholungen), dann andere Starts",
    "Draw both runs' actions on shared axes (the other run dashed)":
        "Die Aktionen beider Läufe auf gemeinsamen Achsen zeichnen (den anderen Lauf gestrichelt)",
    "Choose a run in Review, then compare it here (or select two runs and choose Compare).":
        "Wählen Sie einen Lauf in Durchsicht und vergleichen Sie ihn hier (oder wählen Sie zwei Läufe und dann Vergleichen).",
    "Compare with:": "Vergleichen mit:",
    "same start state": "gleicher Startzustand",
    "same seed": "gleicher Seed",
    "another start": "anderer Start",
    ", other policy": ", andere Policy",
    ", other world model": ", anderes Weltmodell",
    ", same components": ", gleiche Komponenten",
    "run %1 - %2 (%3; %4)": "Lauf %1 - %2 (%3; %4)",
    "policy: %1\nworld model: %2": "Policy: %1\nWeltmodell: %2",
    "no other run of this instruction": "kein anderer Lauf dieser Anweisung",
    "<b>Run %1</b> beside <b>run %2</b>, on one timeline": "<b>Lauf %1</b> neben <b>Lauf %2</b>, auf einer Zeitachse",
    "Run %1 has no other run of its instruction to compare with.":
        "Zu Lauf %1 gibt es keinen anderen Lauf seiner Anweisung zum Vergleichen.",
    "run %1": "Lauf %1",
    "&Compare the selected runs": "Gewählte Läufe &vergleichen",
    "Running rollouts needs kosmos-cli, the engine, beside the workstation; it was not found.":
        "Rollouts auszuführen braucht kosmos-cli, die Engine, neben der Workstation; es wurde nicht gefunden.",
    "New batch...": "Neuer Stapel...",
    "Plugins...": "Plugins...",
    "Cancel batch": "Stapel abbrechen",
    "Retry selected failed runs": "Gewählte fehlgeschlagene Läufe wiederholen",
    "Workspaces": "Arbeitsbereiche",
    "&Review": "&Durchsicht",
    "&Compare": "&Vergleich",
    "&Evaluate": "&Auswertung",
    "R&un": "A&usführen",
    "Runs, frames and traces, verdicts, provenance, bookmarks and events":
        "Läufe, Bilder und Verläufe, Urteile, Herkunft, Lesezeichen und Ereignisse",
    "Two runs side by side on one timeline": "Zwei Läufe nebeneinander auf einer Zeitachse",
    "Judge calibration, paired audit, policy ranking, fidelity":
        "Kalibrierung des Bewerters, gepaartes Audit, Policy-Rangfolge, Treue",
    "Batch progress: workers, shards, resources": "Stapelfortschritt: Worker, Shards, Ressourcen",
    "Export the &selected runs...": "&Gewählte Läufe exportieren...",
    "Compare shows two runs: the first two of the %1 selected":
        "Der Vergleich zeigt zwei Läufe: die ersten zwei der %1 gewählten",
    "%1 run key(s) copied": "%1 Laufschlüssel kopiert",
    "Export %1 run(s) to (one folder per run)": "%1 Lauf/Läufe exportieren nach (ein Ordner je Lauf)",
    "Exported %1 of %2 run(s) to %3": "%1 von %2 Lauf/Läufen nach %3 exportiert",
    "Compare the first two selected": "Die ersten zwei gewählten vergleichen",
    "Compare with the same start": "Mit demselben Start vergleichen",
    "Export %1 run(s)...": "%1 Lauf/Läufe exportieren...",
    "Retry the failed ones": "Die fehlgeschlagenen wiederholen",
    "Label blind...": "Blind beschriften...",
    "Copy run keys": "Laufschlüssel kopieren",
    "%1: %2 runs, %3 artifacts": "%1: %2 Läufe, %3 Artefakte",
    "ledger cannot be read: %1": "Ledger nicht lesbar: %1",
    "Batches run in kosmos-cli worker processes (or Slurm shards); their progress is followed here through the ledger.":
        "Stapel laufen in kosmos-cli-Worker-Prozessen (oder Slurm-Shards); ihr Fortschritt wird hier über das Ledger verfolgt.",
    "&Show progress": "Fortschritt &zeigen",
    "Channels": "Kanäle",
    "Show or hide channels; group the action dimensions on one axis":
        "Kanäle ein- oder ausblenden; die Aktionsdimensionen auf einer Achse gruppieren",
    "Reset zoom": "Zoom zurücksetzen",
    "Show the whole rollout (or double-click the traces). Wheel: zoom around the mouse; middle button or Shift+drag: pan":
        "Den ganzen Rollout zeigen (oder Doppelklick auf die Verläufe). Rad: um die Maus zoomen; mittlere Taste oder Umschalt+Ziehen: verschieben",
    "action %1": "Aktion %1",
    "Group action dimensions on one axis": "Aktionsdimensionen auf einer Achse gruppieren",
    "this run": "dieser Lauf",
    "cursor": "Cursor",
    "world-model call": "Weltmodell-Aufruf",
    "judge frames": "Bewerter-Bilder",
    "bookmarks": "Lesezeichen",
    "validation failures": "Validierungsfehler",
    "step %1, t = %2 s: %3": "Schritt %1, t = %2 s: %3",
    "The judge's evidence frames: click to show one in the player":
        "Die Belegbilder des Bewerters: klicken, um eines im Player zu zeigen",
    "Select a sample to read the judge's raw answer": "Wählen Sie eine Stichprobe, um die Rohantwort des Bewerters zu lesen",
    "No run selected.": "Kein Lauf gewählt.",
    "\n\n(not parsed: %1)": "\n\n(nicht geparst: %1)",
    "%1 tokens, decoded in %2 ms": "%1 Tokens, dekodiert in %2 ms",
    "<b>No judgment</b> of this run.": "<b>Kein Urteil</b> zu diesem Lauf.",
    "<span style='font-size:large; color:%1'><b>%2</b></span>%3<br>": "<span style='font-size:large; color:%1'><b>%2</b></span>%3<br>",
    "quorum: %1 decisive of %2 samples (%3 parsed; %4 needed)":
        "Quorum: %1 entscheidend von %2 Stichproben (%3 geparst; %4 nötig)",
    "<br>progress: %1 &middot; judge: %2%3": "<br>Fortschritt: %1 &middot; Bewerter: %2%3",
    " (latest of %1 judgments)": " (neuestes von %1 Urteilen)",
    "frame %1": "Bild %1",
    "frame %1 cannot be read (verify names it)": "Bild %1 nicht lesbar (verify nennt es)",
    "needs two configurations": "braucht zwei Konfigurationen",
    "This ledger has one judge configuration. Judge the same rollouts with another (kosmos-cli judge --all --ledger LEDGER --judge CONFIG.json), then choose it as B.":
        "Dieses Ledger hat eine Bewerter-Konfiguration. Bewerten Sie dieselben Rollouts mit einer anderen (kosmos-cli judge --all --ledger LEDGER --judge CONFIG.json) und wählen Sie sie dann als B.",
    "A and B are the same configuration: choose another as B.":
        "A und B sind dieselbe Konfiguration: Wählen Sie eine andere als B.",
    "attempt id %1": "Versuchs-ID %1",
    "Choose a run in the list to cancel it.": "Wählen Sie einen Lauf in der Liste, um ihn abzubrechen.",
    "Run %1: cancel requested; its worker stops it at the next step.":
        "Lauf %1: Abbruch angefordert; sein Worker stoppt ihn beim nächsten Schritt.",
    "Run %1 was not cancelled: it has already finished.": "Lauf %1 wurde nicht abgebrochen: Er ist bereits beendet.",
    "Run %1 was not cancelled: %2": "Lauf %1 wurde nicht abgebrochen: %2",
    "Cannot judge again: %1": "Erneutes Bewerten nicht möglich: %1",
    "kosmos-cli was not found": "kosmos-cli wurde nicht gefunden",
    "Judging %1 run(s) again with %2...": "%1 Lauf/Läufe werden mit %2 erneut bewertet...",
    "Judge again with another judge...": "Mit einem anderen Bewerter erneut bewerten...",
    "A judge configuration (as kosmos-cli judge --judge takes)":
        "Eine Bewerter-Konfiguration (wie sie kosmos-cli judge --judge nimmt)",
    "Judge configurations (*.json)": "Bewerter-Konfigurationen (*.json)",
    "%1 run(s) judged again; the new judgments are beside the old ones":
        "%1 Lauf/Läufe erneut bewertet; die neuen Urteile stehen neben den alten",
    "%1 run(s) judged again, %2 not: %3": "%1 Lauf/Läufe erneut bewertet, %2 nicht: %3",
    "Select an item to read its values in full": "Wählen Sie einen Eintrag, um seine Werte vollständig zu lesen",
    "runs are still being judged again": "Läufe werden noch erneut bewertet",
    "no ledger or no runs to judge": "kein Ledger oder keine Läufe zum Bewerten",
    "run %1: %2": "Lauf %1: %2",
    "Frames (PNG, as stored)": "Bilder (PNG, wie gespeichert)",
    "Actions (CSV)": "Aktionen (CSV)",
    "Video (H.264 MP4, plays in browsers)": "Video (H.264-MP4, läuft im Browser)",
    "Overlay on the video: run, policy, step, verdict, actions":
        "Einblendung im Video: Lauf, Policy, Schritt, Urteil, Aktionen",
    "Export %1 runs": "%1 Läufe exportieren",
    "Export the run": "Den Lauf exportieren",
    "a folder; created when missing": "ein Ordner; wird angelegt, wenn er fehlt",
    "Choose...": "Wählen...",
    "Export to": "Exportieren nach",
    "Into (one folder per run)": "Nach (ein Ordner je Lauf)",
    "Into": "Nach",
    "What": "Was",
    "Export": "Exportieren",
    "Choose a folder to export to.": "Wählen Sie einen Ordner für den Export.",
    "Choose what to export: the frames, the actions or the video.":
        "Wählen Sie, was exportiert wird: die Bilder, die Aktionen oder das Video.",
    "Exported %1 run(s) to %2, one folder each": "%1 Lauf/Läufe nach %2 exportiert, je ein Ordner",
    "\nShowing %1 of %2 runs: the running ones, the next queued, the latest finished.":
        "\nGezeigt: %1 von %2 Läufen: die laufenden, die nächsten wartenden, die zuletzt beendeten.",
    'inconclusive': 'nicht schlüssig',
    'Test (Holm-adjusted)': 'Test (Holm-korrigiert)',
    'What would separate them': 'Was sie trennen würde',
    '<b>%3</b><br>%1 episodes with a decisive outcome, %2 without (left out of the rates and counted here; the worst / best case per cell counts them as failures / successes). %4 These are rollouts in a generated or synthetic world, not evidence of real robot-task success.':
        '<b>%3</b><br>%1 Episoden mit eindeutigem Ergebnis, %2 ohne (aus den Raten herausgelassen und hier gezählt; der schlechteste / beste Fall je Zelle zählt sie als Fehlschläge / Erfolge). %4 Dies sind Rollouts in einer generierten oder synthetischen Welt, kein Beleg für echten Roboter-Aufgabenerfolg.',
    '<b>No protocol of this ledger has physics labels</b>, so there is no ground truth to compare a world model against. ':
        '<b>Kein Protokoll dieses Ledgers hat Physik-Labels</b>, es gibt also keine Grundwahrheit, mit der ein Weltmodell verglichen werden könnte. ',
    'Choose two different protocols: the physics one (ground truth) and the imagined one (world model, judged).':
        'Wählen Sie zwei verschiedene Protokolle: das physikalische (Grundwahrheit) und das vorgestellte (Weltmodell, bewertet).',
    'Spread in physics: %1 distinguishable level(s) of %2 policies, %3 at 0%, %4 at 100%; physics states %5 of %6 pairwise orders.':
        'Streuung in der Physik: %1 unterscheidbare Stufe(n) bei %2 Policies, %3 bei 0 %, %4 bei 100 %; die Physik legt %5 von %6 paarweisen Reihenfolgen fest.',
    'NOT INFORMATIVE:': 'NICHT AUSSAGEKRÄFTIG:',
    "the correlations and MMRV below say nothing about this world model's fidelity: %1.":
        'die Korrelationen und die MMRV unten sagen nichts über die Treue dieses Weltmodells: %1.',
    '<b>%1 paired episodes</b> (same policy, same start); unpaired %2 physics, %3 imagined.<br>Across the policies with a rate in both worlds, 95% bootstrap over starts (%4 replicates): <b>Pearson %5</b>, Spearman %6, <b>MMRV %7</b> (lower is better; it rests on the pairwise orders physics states). Anchors: WorldGym r = 0.78; SC3-Eval Pearson 0.929, MMRV 0.119.<br>Pairwise orders: %8 the same, %9 opposite, %10 indeterminate in a world.<br>Per episode: agreement %11 (n = %12), world-model success when physics failed %13, failure when physics succeeded %14.<br><i>Both worlds are simulations: this is agreement with a physics reference, not evidence of real robot-task success.</i>':
        '<b>%1 gepaarte Episoden</b> (gleiche Policy, gleicher Start); ungepaart %2 Physik, %3 vorgestellt.<br>Über die Policies mit einer Rate in beiden Welten, 95-%-Bootstrap über Starts (%4 Wiederholungen): <b>Pearson %5</b>, Spearman %6, <b>MMRV %7</b> (kleiner ist besser; sie beruht auf den paarweisen Reihenfolgen, die die Physik festlegt). Anker: WorldGym r = 0,78; SC3-Eval Pearson 0,929, MMRV 0,119.<br>Paarweise Reihenfolgen: %8 gleich, %9 umgekehrt, %10 in einer Welt unbestimmt.<br>Je Episode: Übereinstimmung %11 (n = %12), Erfolg im Weltmodell bei Fehlschlag in der Physik %13, Fehlschlag bei Erfolg in der Physik %14.<br><i>Beide Welten sind Simulationen: Dies ist Übereinstimmung mit einer Physik-Referenz, kein Beleg für echten Roboter-Aufgabenerfolg.</i>',
    '%1 (cannot load: %2)': '%1 (lässt sich nicht laden: %2)',
    '%1 (%2) cannot run with these settings: %3':
        '%1 (%2) kann mit diesen Einstellungen nicht laufen: %3',
    'policy %1': 'Policy %1',
    'judge': 'Richter',
    'policy form': 'Policy-Formular',
    '%1 can run with these settings: Add policy.':
        '%1 kann mit diesen Einstellungen laufen: Policy hinzufügen.',
    '%1 cannot run with these settings: %2':
        '%1 kann mit diesen Einstellungen nicht laufen: %2',
    'Checking whether %1 can run with these settings...':
        'Prüfe, ob %1 mit diesen Einstellungen laufen kann ...',
    '%1: %2 runs, %3 artifacts, as the batch writes them; read here read-only':
        '%1: %2 Läufe, %3 Artefakte, während der Stapel sie schreibt; hier nur lesend geöffnet',
    'the check ended abnormally: %1': 'die Prüfung endete abnormal: %1',
    'available with the tested settings': 'verfügbar mit den getesteten Einstellungen',
    'needs settings': 'braucht Einstellungen',
    '%1 (%p% of steps)': '%1 (%p % der Schritte)',
    '(choose)': '(auswählen)',
    'Other folder...': 'Anderer Ordner ...',
    'Choose a model package folder': 'Ordner eines Modellpakets wählen',
    '(default)': '(Standard)',
    'queued': 'wartend',
    'running': 'läuft',
    'completed': 'abgeschlossen',
    'failed': 'fehlgeschlagen',
    'cancelled': 'abgebrochen',
    'interrupted': 'unterbrochen',
    'success': 'Erfolg',
    'failure': 'Fehlschlag',
    'unknown': 'unbekannt',
    'none': 'keins',
    'valid': 'gültig',
    'invalid': 'ungültig',
    'met': 'erfüllt',
    'not met': 'nicht erfüllt',
    'unclear': 'unklar',
    'The new language takes effect when the workstation next starts (File > Quit, then start it again).':
        'Die neue Sprache gilt ab dem nächsten Start der Workstation (Datei > Beenden, dann erneut starten).',
    "%1 (not one of the judge's frames)": '%1 (keines der Bilder des Richters)',
    'rollout frames; the judge named its frames %1 of %2': 'Bilder des Rollouts; der Richter nannte seine Bilder %1 von %2',
    'No judged run has a label yet: label clips blind (View > Label clips blind)':
        'Noch kein bewerteter Lauf hat ein Label: Clips blind labeln (Ansicht > Clips blind labeln)',
    'No answers of two judge configurations on the same clips to compare':
        'Keine Antworten zweier Richter-Konfigurationen auf dieselben Clips zum Vergleich',
    'No policy has a decided run yet':
        'Noch keine Policy hat einen entschiedenen Lauf',
    'No policy matched a reference rate':
        'Keine Policy passte zu einer Referenzrate',
    'No policy has a rate in both worlds yet':
        'Noch keine Policy hat eine Rate in beiden Welten',
    'No replay compared yet: Compare frames replays physics actions in the world model':
        'Noch keine Wiedergabe verglichen: Bilder vergleichen spielt Physik-Aktionen im Weltmodell ab',
    '%1: %2 (%3 judgments)':
        '%1: %2 (%3 Urteile)',
    'This ledger has one judge configuration. Judge the same rollouts with another: select them in Review, right-click > Judge again with another judge... (or kosmos-cli judge --all --judge CONFIG.json), then choose it as B.':
        'Dieses Ledger hat eine Richter-Konfiguration. Bewerten Sie dieselben Rollouts mit einer anderen: in der Durchsicht auswählen, Rechtsklick > Mit einem anderen Bewerter erneut bewerten... (oder kosmos-cli judge --all --judge CONFIG.json), dann als B wählen.',
    'Open a ledger or create one first (File > New ledger...).':
        'Öffnen Sie zuerst ein Ledger oder legen Sie eines an (Datei > Neues Ledger...).',
    'status': 'Status',
    'validation': 'Validierung',
    'reference': 'Referenz',
    'human label': 'Mensch',
    'protocol': 'Protokoll',
    "Filter by the run's status": 'Nach dem Status des Laufs filtern',
    'Filter by the judge\'s outcome ("none": not judged)': 'Nach dem Urteil des Richters filtern („keins“: nicht bewertet)',
    'Filter by the validation verdict': 'Nach dem Validierungsergebnis filtern',
    'Filter by the human labels': 'Nach den menschlichen Labels filtern',
    'Filter by the protocol the runs belong to': 'Nach dem Protokoll der Läufe filtern',
    '%1 of %2 runs completed': '%1 von %2 Läufen abgeschlossen',
    ', %1 failed': ', %1 fehlgeschlagen',
    ', %1 cancelled': ', %1 abgebrochen',
    'task %1: the task id is empty':
        'Aufgabe %1: die Aufgaben-ID ist leer',
    'task %1: the task id %2 is used twice':
        'Aufgabe %1: die Aufgaben-ID %2 kommt zweimal vor',
    'task %1: the instruction is empty':
        'Aufgabe %1: die Anweisung ist leer',
    'Add a task (a world that knows its tasks offers them when it is chosen).':
        'Fügen Sie eine Aufgabe hinzu (eine Welt, die ihre Aufgaben kennt, bietet sie an, sobald sie gewählt wird).',
    'Add a policy: choose its plugin and settings, then Add policy.':
        'Fügen Sie eine Policy hinzu: Plugin und Einstellungen wählen, dann Policy hinzufügen.',
    'The judge needs at least 16 frames: set the horizon to 15 steps or more.':
        'Der Richter braucht mindestens 16 Bilder: Setzen Sie den Horizont auf 15 Schritte oder mehr.',
    'Give the batch a name.': 'Geben Sie dem Stapel einen Namen.',
    'task %1: the start state must be a JSON object, such as {}': 'Aufgabe %1: der Startzustand muss ein JSON-Objekt sein, etwa {}',
    'labelled successes':
        'gelabelte Erfolge',
    'labelled failures':
        'gelabelte Fehlschläge',
    'decisive labelled clips':
        'entschiedene gelabelte Clips',
    'decisive labelled clips >= %1':
        'entschiedene gelabelte Clips >= %1',
    'labelled successes >= %1':
        'gelabelte Erfolge >= %1',
    'labelled failures >= %1':
        'gelabelte Fehlschläge >= %1',
    'sensitivity >= %1':
        'Sensitivität >= %1',
    'specificity >= %1':
        'Spezifität >= %1',
    '|leniency offset| <= %1':
        '|Nachsichtigkeits-Versatz| <= %1',
    '; the interval reaches below the bound: a pass on the point value':
        '; das Intervall reicht unter die Schwelle: bestanden nur nach dem Punktwert',
    '; the interval reaches the bound: a fail on the point value':
        '; das Intervall erreicht die Schwelle: durchgefallen nur nach dem Punktwert',
    '%1 [95% CI %2, %3] over %4 pairs':
        '%1 [95-%-KI %2, %3] über %4 Paare',
    ' (%1 indecisive)':
        ' (%1 unentschieden)',
    '%1 to measure it':
        '%1, um ihn zu messen',
    'the observed offset lies on the bound: no number of clips settles it':
        'der beobachtete Versatz liegt auf der Schwelle: keine Zahl von Clips entscheidet ihn',
    'the observed rate lies on the bound: no number of %1 settles it':
        'die beobachtete Rate liegt auf der Schwelle: keine Zahl %1 entscheidet sie',
    "%1 more %2 (fewer than the gate's %3 %2)":
        '%1 weitere %2 (weniger als die %3 %2 des Gates)',
    '%1 more %2':
        '%1 weitere %2',
    'about %1 more %2':
        'etwa %1 weitere %2',
    'more than a million %1':
        'mehr als eine Million %1',
    '%1 (at the observed offset) for the interval to clear the bound':
        '%1 (beim beobachteten Versatz), damit das Intervall die Schwelle hinter sich lässt',
    '%1 (at the observed offset) for the interval to fall outside the bound':
        '%1 (beim beobachteten Versatz), damit das Intervall außerhalb der Schwelle fällt',
    '%1 (at the observed %2%) for the interval to clear the bound':
        '%1 (bei beobachteten %2 %), damit das Intervall die Schwelle hinter sich lässt',
    '%1 (at the observed %2%) for the interval to fall below the bound':
        '%1 (bei beobachteten %2 %), damit das Intervall unter die Schwelle fällt',
    '%1: %2':
        '%1: %2',
    '%1: %2; needs %3':
        '%1: %2; braucht %3',
    'Judged by':
        'Beurteilt von',
    "Whose verdicts count, on both sides: the protocols' own judge, or another judge configuration of this ledger, whether the runs' own or re-judging their recorded rollouts (kosmos-cli judge --all ... --judge J.json; kosmos-cli fidelity --config)":
        'Wessen Urteile zählen, auf beiden Seiten: der eigene Richter der Protokolle oder eine andere Richterkonfiguration dieses Ledgers, ob die der Läufe selbst oder eine, die ihre aufgezeichneten Rollouts neu beurteilt (kosmos-cli judge --all ... --judge J.json; kosmos-cli fidelity --config)',
    "the protocols' own judge":
        'der eigene Richter der Protokolle',
    'Choose the physics protocol (ground truth) and the imagined one (world model, judged).':
        'Wählen Sie das Physikprotokoll (Grundwahrheit) und das imaginierte (Weltmodell, beurteilt).',
    '[open loop] ':
        '[offene Schleife] ',
    "\n\nIn the world model, the actions this policy took in physics from each start were replayed open loop: it reads the simulator's state, which a world model does not give, or the imagined protocol was prepared with --open-loop. Its world-model rate says whether the world model and judge see success in those actions, not how it would react to imagined frames.":
        '\n\nIm Weltmodell wurden die Aktionen, die diese Policy in der Physik von jedem Start aus ausführte, in offener Schleife abgespielt: Sie liest den Zustand des Simulators, den ein Weltmodell nicht liefert, oder das imaginierte Protokoll wurde mit --open-loop vorbereitet. Ihre Weltmodell-Rate sagt, ob Weltmodell und Richter in diesen Aktionen Erfolg sehen, nicht wie sie auf imaginierte Frames reagieren würde.',
    "<b>Judged by %1</b> (each run's latest judgment by it, its own or a re-judgment of the recorded rollout); rollouts it has not judged, without a verdict: %2 imagined, %3 physics.<br>":
        '<b>Beurteilt von %1</b> (das jüngste Urteil dieser Konfiguration je Lauf, sein eigenes oder eine Neubeurteilung des aufgezeichneten Rollouts); Rollouts, die sie nicht beurteilt hat, ohne Urteil: %2 imaginiert, %3 Physik.<br>',
    'The imagined actions replayed in physics cannot split this comparison: %1':
        'Die in der Physik abgespielten imaginierten Aktionen können diesen Vergleich nicht aufteilen: %1',
    'n/a':
        'k. A.',
    "<b>Where the disagreement comes from</b> (%1: each policy's actions in the world model replayed in physics): of %2 pairs, %3 the policy acted otherwise on imagined frames, %4 the world model or the judge erred on the very actions (%5 lenient, %6 harsh), %7 agree by two errors that cancel; on its own actions the world model agrees with physics %8 (kappa %9). A diagnosis, counted for no goal.":
        '<b>Woher die Abweichung kommt</b> (%1: die Aktionen jeder Policy im Weltmodell, in der Physik abgespielt): von %2 Paaren handelte in %3 die Policy auf imaginierten Frames anders, in %4 irrten Weltmodell oder Richter bei genau diesen Aktionen (%5 nachsichtig, %6 streng), %7 stimmen durch zwei sich aufhebende Fehler überein; bei seinen eigenen Aktionen stimmt das Weltmodell mit der Physik %8 überein (Kappa %9). Eine Diagnose, für kein Ziel gezählt.',
    'Goals':
        'Ziele',
    '(docs/fidelity.md; hover for each goal and its anchors):':
        '(docs/fidelity.md; für jedes Ziel und seine Referenzwerte mit der Maus darüberfahren):',
    'undecided':
        'unentschieden',
    'anchors:':
        'Referenzwerte:',
    'Episodes each worker runs in lockstep: one call of a batched policy or world model (torch.generic_*) for all of them; the others are called per episode. The runs are the same as with 1.':
        'Episoden, die jeder Worker im Gleichschritt ausführt: ein Aufruf einer gebündelten Policy oder eines gebündelten Weltmodells (torch.generic_*) für alle; die anderen werden je Episode aufgerufen. Die Läufe sind dieselben wie mit 1.',
    'Episodes in lockstep per worker':
        'Episoden im Gleichschritt je Worker',
    "Throughput per worker (each stage's share of the work; store runs beside the rollout):\n%1":
        'Durchsatz je Worker (Anteil jeder Stufe an der Arbeit; das Speichern läuft neben dem Rollout):\n%1',
    'Choose a folder: %1':
        'Wählen Sie einen Ordner: %1',
    'Of those errors on the very actions, the judge makes the same call on the physics frames of the actions in %1 of %2 (its own error on real frames).':
        'Von diesen Fehlern bei genau diesen Aktionen trifft der Richter auf den Physik-Frames der Aktionen in %1 von %2 dasselbe Urteil (sein eigener Fehler auf echten Frames).',
}


def main(path):
    tree = ET.parse(path)
    missing = []
    for message in tree.getroot().iter("message"):
        source = message.find("source").text
        translation = message.find("translation")
        if source in DE:
            translation.text = DE[source]
            translation.attrib.pop("type", None)
        elif translation.get("type") == "unfinished" or not translation.text:
            missing.append(source)
    tree.write(path, encoding="utf-8", xml_declaration=True)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    with open(path, "w", encoding="utf-8") as f:  # keep lupdate's DOCTYPE line
        f.write(text.replace("<?xml version='1.0' encoding='utf-8'?>",
                             '<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>', 1))
    for source in missing:
        print("no German for:", repr(source))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "translations/kosmos_de.ts"))

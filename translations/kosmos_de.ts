<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name>About</name>
    <message>
        <source>libtorch: no installed plugin uses it</source>
        <translation>libtorch: kein installiertes Plugin verwendet es</translation>
    </message>
    <message>
        <source>libtorch %1: used by %2 (loaded only when one of them runs)</source>
        <translation>libtorch %1: verwendet von %2 (nur geladen, wenn eines davon läuft)</translation>
    </message>
    <message>
        <source>plugins found: %1</source>
        <translation>gefundene Plugins: %1</translation>
    </message>
</context>
<context>
    <name>EvaluationPlots</name>
    <message>
        <source>judge success-vote share</source>
        <translation>Anteil der Erfolgsstimmen des Richters</translation>
    </message>
    <message>
        <source>human label success rate</source>
        <translation>Erfolgsrate der menschlichen Bewertungen</translation>
    </message>
    <message>
        <source>reference label success rate</source>
        <translation>Erfolgsrate der Referenzbewertungen</translation>
    </message>
    <message>
        <source>A</source>
        <translation>A</translation>
    </message>
    <message>
        <source>B</source>
        <translation>B</translation>
    </message>
    <message>
        <source>schema-valid</source>
        <translation>schemagültig</translation>
    </message>
    <message>
        <source>bare JSON</source>
        <translation>reines JSON</translation>
    </message>
    <message>
        <source>share of answers</source>
        <translation>Anteil der Antworten</translation>
    </message>
    <message>
        <source>success rate, Wilson 95%</source>
        <translation>Erfolgsrate, Wilson 95%</translation>
    </message>
    <message>
        <source>reference success rate</source>
        <translation>Referenz-Erfolgsrate</translation>
    </message>
    <message>
        <source>success rate here</source>
        <translation>Erfolgsrate hier</translation>
    </message>
    <message>
        <source>physics success rate (simulator state)</source>
        <translation>Erfolgsrate in der Physik (Simulatorzustand)</translation>
    </message>
    <message>
        <source>world-model success rate (judged)</source>
        <translation>Erfolgsrate im Weltmodell (bewertet)</translation>
    </message>
    <message>
        <source>PSNR (dB)</source>
        <translation>PSNR (dB)</translation>
    </message>
    <message>
        <source>SSIM</source>
        <translation>SSIM</translation>
    </message>
    <message>
        <source>step (open-loop replay of physics actions)</source>
        <translation>Schritt (Wiedergabe der Physik-Aktionen ohne Rückkopplung)</translation>
    </message>
    <message>
        <source>policy</source>
        <translation>Policy</translation>
    </message>
    <message>
        <source>No judged run has a label yet: label clips blind (View &gt; Label clips blind)</source>
        <translation>Noch kein bewerteter Lauf hat ein Label: Clips blind labeln (Ansicht &gt; Clips blind labeln)</translation>
    </message>
    <message>
        <source>No answers of two judge configurations on the same clips to compare</source>
        <translation>Keine Antworten zweier Richter-Konfigurationen auf dieselben Clips zum Vergleich</translation>
    </message>
    <message>
        <source>No policy has a decided run yet</source>
        <translation>Noch keine Policy hat einen entschiedenen Lauf</translation>
    </message>
    <message>
        <source>No policy matched a reference rate</source>
        <translation>Keine Policy passte zu einer Referenzrate</translation>
    </message>
    <message>
        <source>No policy has a rate in both worlds yet</source>
        <translation>Noch keine Policy hat eine Rate in beiden Welten</translation>
    </message>
    <message>
        <source>No replay compared yet: Compare frames replays physics actions in the world model</source>
        <translation>Noch keine Wiedergabe verglichen: Bilder vergleichen spielt Physik-Aktionen im Weltmodell ab</translation>
    </message>
    <message>
        <source>PSNR (dB), 95% band</source>
        <translation>PSNR (dB), 95-%-Band</translation>
    </message>
    <message>
        <source>SSIM, 95% band</source>
        <translation>SSIM, 95-%-Band</translation>
    </message>
</context>
<context>
    <name>EvaluationView</name>
    <message>
        <source>pass</source>
        <translation>bestanden</translation>
    </message>
    <message>
        <source>FAIL</source>
        <translation>NICHT BESTANDEN</translation>
    </message>
    <message>
        <source>inconclusive</source>
        <translation>nicht schlüssig</translation>
    </message>
</context>
<context>
    <name>QObject</name>
    <message>
        <source>No plugin here can use CUDA: the synthetic and physics backends run on the CPU, and no libtorch plugin is built.</source>
        <translation>Kein Plugin hier kann CUDA nutzen: Die synthetischen und Physik-Backends laufen auf der CPU, und kein libtorch-Plugin ist gebaut.</translation>
    </message>
    <message>
        <source>The libtorch plugins here were built on libtorch %1, which is CPU-only (Debian's libtorch-dev): build the cuda preset (scripts/setup-cuda.sh, docs/gpu.md) to run them on a GPU.</source>
        <translation>Die libtorch-Plugins hier wurden mit libtorch %1 gebaut, das nur die CPU kennt (Debians libtorch-dev): Bauen Sie das Preset cuda (scripts/setup-cuda.sh, docs/gpu.md), um sie auf einer GPU auszuführen.</translation>
    </message>
    <message>
        <source>The libtorch plugins can use CUDA, but here: %1.</source>
        <translation>Die libtorch-Plugins können CUDA nutzen, aber hier: %1.</translation>
    </message>
    <message>
        <source>cuda:%1 - %2 (%3 GiB free of %4)</source>
        <translation>cuda:%1 - %2 (%3 GiB von %4 frei)</translation>
    </message>
    <message>
        <source>Sets the device of every CUDA-capable adapter (torch.*) in the batch; the others run on the CPU. Check refuses a batch whose declared memory does not fit.</source>
        <translation>Setzt das Gerät jedes CUDA-fähigen Adapters (torch.*) im Stapel; die übrigen laufen auf der CPU. Prüfen lehnt einen Stapel ab, dessen angegebener Speicher nicht passt.</translation>
    </message>
</context>
<context>
    <name>Vocabulary</name>
    <message>
        <source>queued</source>
        <translation>wartend</translation>
    </message>
    <message>
        <source>running</source>
        <translation>läuft</translation>
    </message>
    <message>
        <source>completed</source>
        <translation>abgeschlossen</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>fehlgeschlagen</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>abgebrochen</translation>
    </message>
    <message>
        <source>interrupted</source>
        <translation>unterbrochen</translation>
    </message>
    <message>
        <source>success</source>
        <translation>Erfolg</translation>
    </message>
    <message>
        <source>failure</source>
        <translation>Fehlschlag</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>unbekannt</translation>
    </message>
    <message>
        <source>none</source>
        <translation>keins</translation>
    </message>
    <message>
        <source>valid</source>
        <translation>gültig</translation>
    </message>
    <message>
        <source>invalid</source>
        <translation>ungültig</translation>
    </message>
    <message>
        <source>met</source>
        <translation>erfüllt</translation>
    </message>
    <message>
        <source>not met</source>
        <translation>nicht erfüllt</translation>
    </message>
    <message>
        <source>unclear</source>
        <translation>unklar</translation>
    </message>
</context>
<context>
    <name>kosmos::ui</name>
    <message>
        <source>labelled successes</source>
        <translation>gelabelte Erfolge</translation>
    </message>
    <message>
        <source>labelled failures</source>
        <translation>gelabelte Fehlschläge</translation>
    </message>
    <message>
        <source>decisive labelled clips</source>
        <translation>entschiedene gelabelte Clips</translation>
    </message>
    <message>
        <source>decisive labelled clips &gt;= %1</source>
        <translation>entschiedene gelabelte Clips &gt;= %1</translation>
    </message>
    <message>
        <source>labelled successes &gt;= %1</source>
        <translation>gelabelte Erfolge &gt;= %1</translation>
    </message>
    <message>
        <source>labelled failures &gt;= %1</source>
        <translation>gelabelte Fehlschläge &gt;= %1</translation>
    </message>
    <message>
        <source>sensitivity &gt;= %1</source>
        <translation>Sensitivität &gt;= %1</translation>
    </message>
    <message>
        <source>specificity &gt;= %1</source>
        <translation>Spezifität &gt;= %1</translation>
    </message>
    <message>
        <source>|leniency offset| &lt;= %1</source>
        <translation>|Nachsichtigkeits-Versatz| &lt;= %1</translation>
    </message>
    <message>
        <source>n = 0 (no rate)</source>
        <translation>n = 0 (keine Rate)</translation>
    </message>
    <message>
        <source>; the interval reaches below the bound: a pass on the point value</source>
        <translation>; das Intervall reicht unter die Schwelle: bestanden nur nach dem Punktwert</translation>
    </message>
    <message>
        <source>; the interval reaches the bound: a fail on the point value</source>
        <translation>; das Intervall erreicht die Schwelle: durchgefallen nur nach dem Punktwert</translation>
    </message>
    <message>
        <source>%1 [95% CI %2, %3] over %4 pairs</source>
        <translation>%1 [95-%-KI %2, %3] über %4 Paare</translation>
    </message>
    <message>
        <source> (%1 indecisive)</source>
        <translation> (%1 unentschieden)</translation>
    </message>
    <message>
        <source>%1 to measure it</source>
        <translation>%1, um ihn zu messen</translation>
    </message>
    <message>
        <source>the observed offset lies on the bound: no number of clips settles it</source>
        <translation>der beobachtete Versatz liegt auf der Schwelle: keine Zahl von Clips entscheidet ihn</translation>
    </message>
    <message>
        <source>the observed rate lies on the bound: no number of %1 settles it</source>
        <translation>die beobachtete Rate liegt auf der Schwelle: keine Zahl %1 entscheidet sie</translation>
    </message>
    <message>
        <source>%1 more %2 (fewer than the gate's %3 %2)</source>
        <translation>%1 weitere %2 (weniger als die %3 %2 des Gates)</translation>
    </message>
    <message>
        <source>%1 more %2</source>
        <translation>%1 weitere %2</translation>
    </message>
    <message>
        <source>about %1 more %2</source>
        <translation>etwa %1 weitere %2</translation>
    </message>
    <message>
        <source>more than a million %1</source>
        <translation>mehr als eine Million %1</translation>
    </message>
    <message>
        <source>%1 (at the observed offset) for the interval to clear the bound</source>
        <translation>%1 (beim beobachteten Versatz), damit das Intervall die Schwelle hinter sich lässt</translation>
    </message>
    <message>
        <source>%1 (at the observed offset) for the interval to fall outside the bound</source>
        <translation>%1 (beim beobachteten Versatz), damit das Intervall außerhalb der Schwelle fällt</translation>
    </message>
    <message>
        <source>%1 (at the observed %2%) for the interval to clear the bound</source>
        <translation>%1 (bei beobachteten %2 %), damit das Intervall die Schwelle hinter sich lässt</translation>
    </message>
    <message>
        <source>%1 (at the observed %2%) for the interval to fall below the bound</source>
        <translation>%1 (bei beobachteten %2 %), damit das Intervall unter die Schwelle fällt</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>%1: %2; needs %3</source>
        <translation>%1: %2; braucht %3</translation>
    </message>
</context>
<context>
    <name>kosmos::ui::BookmarksPanel</name>
    <message>
        <source>Remove</source>
        <translation>Entfernen</translation>
    </message>
    <message>
        <source>Press B in the player to bookmark the current frame</source>
        <translation>B im Player drücken, um das aktuelle Bild als Lesezeichen zu speichern</translation>
    </message>
    <message>
        <source>frame %1  %2</source>
        <translation>Bild %1  %2</translation>
    </message>
</context>
<context>
    <name>kosmos::ui::CompareView</name>
    <message>
        <source>no judgment</source>
        <translation>kein Urteil</translation>
    </message>
    <message>
        <source>judge: %1</source>
        <translation>Richter: %1</translation>
    </message>
    <message>
        <source>&lt;b&gt;Run %1&lt;/b&gt; %2 - %3, validation %4</source>
        <translation>&lt;b&gt;Lauf %1&lt;/b&gt; %2 - %3, Validierung %4</translation>
    </message>
    <message>
        <source>Overlay traces</source>
        <translation>Verläufe überlagern</translation>
    </message>
    <message>
        <source>Runs of the same instruction: from the same start first (other policies, then other world models, then repeats), then other starts</source>
        <translation>Läufe derselben Anweisung: zuerst vom selben Start (andere Policies, dann andere Weltmodelle, dann Wiederholungen), dann andere Starts</translation>
    </message>
    <message>
        <source>Draw both runs' actions on shared axes (the other run dashed)</source>
        <translation>Die Aktionen beider Läufe auf gemeinsamen Achsen zeichnen (den anderen Lauf gestrichelt)</translation>
    </message>
    <message>
        <source>Choose a run in Review, then compare it here (or select two runs and choose Compare).</source>
        <translation>Wählen Sie einen Lauf in Durchsicht und vergleichen Sie ihn hier (oder wählen Sie zwei Läufe und dann Vergleichen).</translation>
    </message>
    <message>
        <source>Compare with:</source>
        <translation>Vergleichen mit:</translation>
    </message>
    <message>
        <source>same start state</source>
        <translation>gleicher Startzustand</translation>
    </message>
    <message>
        <source>same seed</source>
        <translation>gleicher Seed</translation>
    </message>
    <message>
        <source>another start</source>
        <translation>anderer Start</translation>
    </message>
    <message>
        <source>, other policy</source>
        <translation>, andere Policy</translation>
    </message>
    <message>
        <source>, other world model</source>
        <translation>, anderes Weltmodell</translation>
    </message>
    <message>
        <source>, same components</source>
        <translation>, gleiche Komponenten</translation>
    </message>
    <message>
        <source>run %1 - %2 (%3; %4)</source>
        <translation>Lauf %1 - %2 (%3; %4)</translation>
    </message>
    <message>
        <source>policy: %1
world model: %2</source>
        <translation>Policy: %1
Weltmodell: %2</translation>
    </message>
    <message>
        <source>no other run of this instruction</source>
        <translation>kein anderer Lauf dieser Anweisung</translation>
    </message>
    <message>
        <source>&lt;b&gt;Run %1&lt;/b&gt; beside &lt;b&gt;run %2&lt;/b&gt;, on one timeline</source>
        <translation>&lt;b&gt;Lauf %1&lt;/b&gt; neben &lt;b&gt;Lauf %2&lt;/b&gt;, auf einer Zeitachse</translation>
    </message>
    <message>
        <source>Run %1 has no other run of its instruction to compare with.</source>
        <translation>Zu Lauf %1 gibt es keinen anderen Lauf seiner Anweisung zum Vergleichen.</translation>
    </message>
    <message>
        <source>run %1</source>
        <translation>Lauf %1</translation>
    </message>
</context>
<context>
    <name>kosmos::ui::DatasetWorkspace</name>
    <message>
        <source>Camera:</source>
        <translation>Kamera:</translation>
    </message>
    <message>
        <source>Filter episodes (task, index, outcome)</source>
        <translation>Episoden filtern (Aufgabe, Index, Ergebnis)</translation>
    </message>
    <message>
        <source>%1 of %2 episodes</source>
        <translation>%1 von %2 Episoden</translation>
    </message>
    <message>
        <source>Episodes</source>
        <translation>Episoden</translation>
    </message>
    <message>
        <source>Dataset</source>
        <translation>Datensatz</translation>
    </message>
    <message>
        <source>No dataset open: File &gt; Open dataset..., or drop a LeRobot dataset folder on the window.</source>
        <translation>Kein Datensatz geöffnet: Datei &gt; Datensatz öffnen... oder einen LeRobot-Datensatzordner auf das Fenster ziehen.</translation>
    </message>
    <message>
        <source>%1 episodes</source>
        <translation>%1 Episoden</translation>
    </message>
    <message>
        <source>All cameras, side by side</source>
        <translation>Alle Kameras nebeneinander</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt;&lt;br&gt;LeRobot %2, robot %3, %4 fps&lt;br&gt;%5 episodes, %6 frames, %7 tasks&lt;br&gt;Cameras: %8&lt;br&gt;&lt;br&gt;&lt;b&gt;Features&lt;/b&gt;&lt;br&gt;%9&lt;br&gt;&lt;br&gt;Recorded data, read in place: nothing is written. To judge, label, evaluate or train on these episodes, import them as recorded runs:&lt;br&gt;&lt;tt&gt;%10&lt;/tt&gt;</source>
        <translation>&lt;b&gt;%1&lt;/b&gt;&lt;br&gt;LeRobot %2, Roboter %3, %4 fps&lt;br&gt;%5 Episoden, %6 Frames, %7 Aufgaben&lt;br&gt;Kameras: %8&lt;br&gt;&lt;br&gt;&lt;b&gt;Merkmale&lt;/b&gt;&lt;br&gt;%9&lt;br&gt;&lt;br&gt;Aufgezeichnete Daten, an Ort und Stelle gelesen: Es wird nichts geschrieben. Um diese Episoden zu bewerten, zu labeln, auszuwerten oder darauf zu trainieren, importieren Sie sie als aufgezeichnete Läufe:&lt;br&gt;&lt;tt&gt;%10&lt;/tt&gt;</translation>
    </message>
    <message>
        <source>none</source>
        <translation>keins</translation>
    </message>
    <message>
        <source>Episode %1: %2</source>
        <translation>Episode %1: %2</translation>
    </message>
    <message>
        <source>Episode %1 of a recorded dataset (read-only, not a generated rollout): %2 frames, "%3"</source>
        <translation>Episode %1 eines aufgezeichneten Datensatzes (nur lesend, kein generiertes Rollout): %2 Frames, "%3"</translation>
    </message>
    <message>
        <source>No episode with frames is shown</source>
        <translation>Keine Episode mit Frames wird angezeigt</translation>
    </message>
    <message>
        <source>Episode %1: %2 frames (%3) and values.csv written to %4%5</source>
        <translation>Episode %1: %2 Frames (%3) und values.csv nach %4 geschrieben%5</translation>
    </message>
    <message>
        <source>, video %1</source>
        <translation>, Video %1</translation>
    </message>
    <message>
        <source>Cannot export episode %1: %2</source>
        <translation>Episode %1 kann nicht exportiert werden: %2</translation>
    </message>
    <message>
        <source>Choose an episode first</source>
        <translation>Wählen Sie zuerst eine Episode</translation>
    </message>
    <message>
        <source>Export episode %1 to a folder</source>
        <translation>Episode %1 in einen Ordner exportieren</translation>
    </message>
</context>
<context>
    <name>kosmos::ui::EpisodesModel</name>
    <message>
        <source>The dataset keeps no per-episode statistics for %1</source>
        <translation>Der Datensatz führt keine Statistik je Episode für %1</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>ja</translation>
    </message>
    <message>
        <source>no</source>
        <translation>nein</translation>
    </message>
    <message>
        <source>Task</source>
        <translation>Aufgabe</translation>
    </message>
    <message>
        <source>Episode</source>
        <translation>Episode</translation>
    </message>
    <message>
        <source>Frames</source>
        <translation>Frames</translation>
    </message>
    <message>
        <source>Seconds</source>
        <translation>Sekunden</translation>
    </message>
    <message>
        <source>%1: its maximum over the episode, from the dataset's own statistics</source>
        <translation>%1: sein Maximum über die Episode, aus der eigenen Statistik des Datensatzes</translation>
    </message>
</context>
<context>
    <name>kosmos::ui::EvaluationView</name>
    <message>
        <source>n = 0 (no rate)</source>
        <translation>n = 0 (keine Rate)</translation>
    </message>
    <message>
        <source>Metric</source>
        <translation>Kennzahl</translation>
    </message>
    <message>
        <source>A</source>
        <translation>A</translation>
    </message>
    <message>
        <source>B</source>
        <translation>B</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>Lauf</translation>
    </message>
    <message>
        <source>Field</source>
        <translation>Feld</translation>
    </message>
    <message>
        <source>Policy</source>
        <translation>Policy</translation>
    </message>
    <message>
        <source>Success (Wilson 95%)</source>
        <translation>Erfolg (Wilson 95%)</translation>
    </message>
    <message>
        <source>n</source>
        <translation>n</translation>
    </message>
    <message>
        <source>Pair</source>
        <translation>Paar</translation>
    </message>
    <message>
        <source>Order</source>
        <translation>Reihenfolge</translation>
    </message>
    <message>
        <source>Bootstrap difference</source>
        <translation>Bootstrap-Differenz</translation>
    </message>
    <message>
        <source>human labels</source>
        <translation>menschliche Labels</translation>
    </message>
    <message>
        <source>synthetic reference labels (NOT human)</source>
        <translation>synthetische Referenzlabels (NICHT menschlich)</translation>
    </message>
    <message>
        <source>Judge configuration</source>
        <translation>Richter-Konfiguration</translation>
    </message>
    <message>
        <source>Against</source>
        <translation>Gegen</translation>
    </message>
    <message>
        <source>gate: labels &gt;=</source>
        <translation>Schwelle: Labels &gt;=</translation>
    </message>
    <message>
        <source>sensitivity &gt;=</source>
        <translation>Sensitivität &gt;=</translation>
    </message>
    <message>
        <source>specificity &gt;=</source>
        <translation>Spezifität &gt;=</translation>
    </message>
    <message>
        <source>|leniency| &lt;=</source>
        <translation>|Nachsicht| &lt;=</translation>
    </message>
    <message>
        <source>Calibration</source>
        <translation>Kalibrierung</translation>
    </message>
    <message>
        <source>Flips (double-click to open the run):</source>
        <translation>Umschläge (Doppelklick öffnet den Lauf):</translation>
    </message>
    <message>
        <source>Paired audit</source>
        <translation>Gepaarte Prüfung</translation>
    </message>
    <message>
        <source>judge outcomes</source>
        <translation>Richterurteile</translation>
    </message>
    <message>
        <source>synthetic reference labels</source>
        <translation>synthetische Referenzlabels</translation>
    </message>
    <message>
        <source>Protocol (rates are never pooled across protocols)</source>
        <translation>Protokoll (Raten werden nie über Protokolle gemischt)</translation>
    </message>
    <message>
        <source>Success by</source>
        <translation>Erfolg nach</translation>
    </message>
    <message>
        <source>Ranking</source>
        <translation>Rangfolge</translation>
    </message>
    <message>
        <source>Cannot read the judgments: %1</source>
        <translation>Die Urteile können nicht gelesen werden: %1</translation>
    </message>
    <message>
        <source>No judgments in this ledger: nothing to calibrate.</source>
        <translation>Keine Urteile in diesem Ledger: nichts zu kalibrieren.</translation>
    </message>
    <message>
        <source>&lt;p style='color:#8a5a00'&gt;&lt;b&gt;Against synthetic reference labels&lt;/b&gt; from a world that knows its true state: not human labels.&lt;/p&gt;</source>
        <translation>&lt;p style='color:#8a5a00'&gt;&lt;b&gt;Gegen synthetische Referenzlabels&lt;/b&gt; aus einer Welt, die ihren wahren Zustand kennt: keine menschlichen Labels.&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;%1 labelled clips: %2 decisive pairs, %3 indecisive.&lt;/p&gt;</source>
        <translation>&lt;p&gt;%1 gelabelte Clips: %2 entschiedene Paare, %3 unentschieden.&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;table border=1 cellpadding=3&gt;&lt;tr&gt;&lt;th&gt;&lt;/th&gt;&lt;th&gt;label success&lt;/th&gt;&lt;th&gt;label failure&lt;/th&gt;&lt;/tr&gt;&lt;tr&gt;&lt;th&gt;judge success&lt;/th&gt;&lt;td&gt;%1&lt;/td&gt;&lt;td&gt;%2&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;th&gt;judge failure&lt;/th&gt;&lt;td&gt;%3&lt;/td&gt;&lt;td&gt;%4&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;</source>
        <translation>&lt;table border=1 cellpadding=3&gt;&lt;tr&gt;&lt;th&gt;&lt;/th&gt;&lt;th&gt;Label Erfolg&lt;/th&gt;&lt;th&gt;Label Misserfolg&lt;/th&gt;&lt;/tr&gt;&lt;tr&gt;&lt;th&gt;Richter Erfolg&lt;/th&gt;&lt;td&gt;%1&lt;/td&gt;&lt;td&gt;%2&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;th&gt;Richter Misserfolg&lt;/th&gt;&lt;td&gt;%3&lt;/td&gt;&lt;td&gt;%4&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;agreement %1&lt;br&gt;sensitivity %2&lt;br&gt;specificity %3&lt;br&gt;kappa %4 (n = %5), progress weighted kappa %6 (n = %7)&lt;br&gt;leniency offset %8&lt;/p&gt;</source>
        <translation>&lt;p&gt;Übereinstimmung %1&lt;br&gt;Sensitivität %2&lt;br&gt;Spezifität %3&lt;br&gt;Kappa %4 (n = %5), gewichtetes Kappa des Fortschritts %6 (n = %7)&lt;br&gt;Nachsichtsversatz %8&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Calibration gate: %1&lt;/b&gt;&lt;br&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;Kalibrierungsschwelle: %1&lt;/b&gt;&lt;br&gt;</translation>
    </message>
    <message>
        <source>error</source>
        <translation>Fehler</translation>
    </message>
    <message>
        <source>clips judged by both</source>
        <translation>von beiden beurteilte Clips</translation>
    </message>
    <message>
        <source>agreement: %1</source>
        <translation>Übereinstimmung: %1</translation>
    </message>
    <message>
        <source>first better</source>
        <translation>erste besser</translation>
    </message>
    <message>
        <source>second better</source>
        <translation>zweite besser</translation>
    </message>
    <message>
        <source>indeterminate</source>
        <translation>unbestimmt</translation>
    </message>
    <message>
        <source>Task</source>
        <translation>Aufgabe</translation>
    </message>
    <message>
        <source>Decisive (Wilson 95%)</source>
        <translation>Entschieden (Wilson 95 %)</translation>
    </message>
    <message>
        <source>Missing</source>
        <translation>Fehlend</translation>
    </message>
    <message>
        <source>Worst / best case</source>
        <translation>Schlechtester / bester Fall</translation>
    </message>
    <message>
        <source>Reference rates...</source>
        <translation>Referenzraten ...</translation>
    </message>
    <message>
        <source>Export evaluation record...</source>
        <translation>Evaluationsbericht exportieren ...</translation>
    </message>
    <message>
        <source>The chosen protocol's record as HTML (plots embedded) and PDF: protocol hash, components, rates with n and intervals, calibration and gate, the audit, and what the numbers do and do not support.</source>
        <translation>Der Bericht des gewählten Protokolls als HTML (mit eingebetteten Diagrammen) und PDF: Protokoll-Hash, Komponenten, Raten mit n und Intervallen, Kalibrierung und Schwelle, das Audit und was die Zahlen belegen und was nicht.</translation>
    </message>
    <message>
        <source>Annotator agreement:</source>
        <translation>Übereinstimmung der Annotatoren:</translation>
    </message>
    <message>
        <source>held-out clips</source>
        <translation>zurückgehaltene Clips</translation>
    </message>
    <message>
        <source>development clips</source>
        <translation>Entwicklungs-Clips</translation>
    </message>
    <message>
        <source>all clips</source>
        <translation>alle Clips</translation>
    </message>
    <message>
        <source>A CSV of "policy,rate" lines, e.g. real-robot success rates: Pearson, Spearman and MMRV against the rates here.</source>
        <translation>Eine CSV-Datei mit Zeilen "policy,rate", z. B. Erfolgsraten echter Roboter: Pearson, Spearman und MMRV gegen die Raten hier.</translation>
    </message>
    <message>
        <source>No reference rates loaded.</source>
        <translation>Keine Referenzraten geladen.</translation>
    </message>
    <message>
        <source>%1 (%2 clips)</source>
        <translation>%1 (%2 Clips)</translation>
    </message>
    <message>
        <source>%1: %2 matched, %3 unmatched. Pearson %4, Spearman %5, MMRV %6 (n = %7).</source>
        <translation>%1: %2 zugeordnet, %3 nicht zugeordnet. Pearson %4, Spearman %5, MMRV %6 (n = %7).</translation>
    </message>
    <message>
        <source>Agreement between annotators needs two people who labelled the same clips (%1 annotator(s) here).</source>
        <translation>Die Übereinstimmung von Annotatoren braucht zwei Personen, die dieselben Clips bewertet haben (hier %1 Annotator(en)).</translation>
    </message>
    <message>
        <source>%1 clips labelled by both: completion agreement %2, kappa %3 (n = %4); progress weighted kappa %5 (n = %6); %7 disagreement(s).</source>
        <translation>%1 Clips von beiden bewertet: Übereinstimmung beim Abschluss %2, Kappa %3 (n = %4); gewichtetes Kappa des Fortschritts %5 (n = %6); %7 Abweichung(en).</translation>
    </message>
    <message>
        <source>Reference success rates</source>
        <translation>Referenz-Erfolgsraten</translation>
    </message>
    <message>
        <source>CSV files (*.csv);;All files (*)</source>
        <translation>CSV-Dateien (*.csv);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>No protocol with rollouts in this ledger: nothing to report.</source>
        <translation>Kein Protokoll mit Rollouts in diesem Ledger: nichts zu berichten.</translation>
    </message>
    <message>
        <source>Export evaluation record</source>
        <translation>Evaluationsbericht exportieren</translation>
    </message>
    <message>
        <source>HTML (*.html)</source>
        <translation>HTML (*.html)</translation>
    </message>
    <message>
        <source>Evaluation record written:
%1
%2</source>
        <translation>Evaluationsbericht geschrieben:
%1
%2</translation>
    </message>
    <message>
        <source>Could not export the evaluation record: %1</source>
        <translation>Der Evaluationsbericht konnte nicht exportiert werden: %1</translation>
    </message>
    <message>
        <source>physics ground truth (simulator state, NOT human)</source>
        <translation>physikalische Grundwahrheit (Simulatorzustand, NICHT menschlich)</translation>
    </message>
    <message>
        <source>physics ground truth (simulator state)</source>
        <translation>physikalische Grundwahrheit (Simulatorzustand)</translation>
    </message>
    <message>
        <source>Fidelity</source>
        <translation>Treue</translation>
    </message>
    <message>
        <source>needs two configurations</source>
        <translation>braucht zwei Konfigurationen</translation>
    </message>
    <message>
        <source>A and B are the same configuration: choose another as B.</source>
        <translation>A und B sind dieselbe Konfiguration: Wählen Sie eine andere als B.</translation>
    </message>
    <message>
        <source>Test (Holm-adjusted)</source>
        <translation>Test (Holm-korrigiert)</translation>
    </message>
    <message>
        <source>What would separate them</source>
        <translation>Was sie trennen würde</translation>
    </message>
    <message>
        <source>&lt;b&gt;%3&lt;/b&gt;&lt;br&gt;%1 episodes with a decisive outcome, %2 without (left out of the rates and counted here; the worst / best case per cell counts them as failures / successes). %4 These are rollouts in a generated or synthetic world, not evidence of real robot-task success.</source>
        <translation>&lt;b&gt;%3&lt;/b&gt;&lt;br&gt;%1 Episoden mit eindeutigem Ergebnis, %2 ohne (aus den Raten herausgelassen und hier gezählt; der schlechteste / beste Fall je Zelle zählt sie als Fehlschläge / Erfolge). %4 Dies sind Rollouts in einer generierten oder synthetischen Welt, kein Beleg für echten Roboter-Aufgabenerfolg.</translation>
    </message>
    <message>
        <source>%1: %2 (%3 judgments)</source>
        <translation>%1: %2 (%3 Urteile)</translation>
    </message>
    <message>
        <source>This ledger has one judge configuration. Judge the same rollouts with another: select them in Review, right-click &gt; Judge again with another judge... (or kosmos-cli judge --all --judge CONFIG.json), then choose it as B.</source>
        <translation>Dieses Ledger hat eine Richter-Konfiguration. Bewerten Sie dieselben Rollouts mit einer anderen: in der Durchsicht auswählen, Rechtsklick &gt; Mit einem anderen Bewerter erneut bewerten... (oder kosmos-cli judge --all --judge CONFIG.json), dann als B wählen.</translation>
    </message>
</context>
<context>
    <name>kosmos::ui::EventsPanel</name>
    <message>
        <source>Seq</source>
        <translation>Nr.</translation>
    </message>
    <message>
        <source>Time (UTC)</source>
        <translation>Zeit (UTC)</translation>
    </message>
    <message>
        <source>Attempt</source>
        <translation>Versuch</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>Typ</translation>
    </message>
    <message>
        <source>Payload</source>
        <translation>Inhalt</translation>
    </message>
    <message>
        <source>run</source>
        <translation>Lauf</translation>
    </message>
    <message>
        <source>attempt id %1</source>
        <translation>Versuchs-ID %1</translation>
    </message>
</context>
<context>
    <name>kosmos::ui::ExportDialog</name>
    <message>
        <source>Frames (PNG, as stored)</source>
        <translation>Bilder (PNG, wie gespeichert)</translation>
    </message>
    <message>
        <source>Actions (CSV)</source>
        <translation>Aktionen (CSV)</translation>
    </message>
    <message>
        <source>Video (H.264 MP4, plays in browsers)</source>
        <translation>Video (H.264-MP4, läuft im Browser)</translation>
    </message>
    <message>
        <source>Overlay on the video: run, policy, step, verdict, actions</source>
        <translation>Einblendung im Video: Lauf, Policy, Schritt, Urteil, Aktionen</translation>
    </message>
    <message>
        <source>Export %1 runs</source>
        <translation>%1 Läufe exportieren</translation>
    </message>
    <message>
        <source>Export the run</source>
        <translation>Den Lauf exportieren</translation>
    </message>
    <message>
        <source>a folder; created when missing</source>
        <translation>ein Ordner; wird angelegt, wenn er fehlt</translation>
    </message>
    <message>
        <source>Choose...</source>
        <translation>Wählen...</translation>
    </message>
    <message>
        <source>Export to</source>
        <translation>Exportieren nach</translation>
    </message>
    <message>
        <source>Into (one folder per run)</source>
        <translation>Nach (ein Ordner je Lauf)</translation>
    </message>
    <message>
        <source>Into</source>
        <translation>Nach</translation>
    </message>
    <message>
        <source>What</source>
        <translation>Was</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>Exportieren</translation>
    </message>
    <message>
        <source>Choose a folder to export to.</source>
        <translation>Wählen Sie einen Ordner für den Export.</translation>
    </message>
    <message>
        <source>Choose what to export: the frames, the actions or the video.</source>
        <translation>Wählen Sie, was exportiert wird: die Bilder, die Aktionen oder das Video.</translation>
    </message>
</context>
<context>
    <name>kosmos::ui::FidelityPanel</name>
    <message>
        <source>Compare frames (kosmos-cli)</source>
        <translation>Bilder vergleichen (kosmos-cli)</translation>
    </message>
    <message>
        <source>Physics protocol (ground truth)</source>
        <translation>Physik-Protokoll (Grundwahrheit)</translation>
    </message>
    <message>
        <source>Imagined protocol (world model, judged)</source>
        <translation>Vorgestelltes Protokoll (Weltmodell, bewertet)</translation>
    </message>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>Policy</source>
        <translation>Policy</translation>
    </message>
    <message>
        <source>Physics (Wilson 95%)</source>
        <translation>Physik (Wilson 95 %)</translation>
    </message>
    <message>
        <source>World model (Wilson 95%)</source>
        <translation>Weltmodell (Wilson 95 %)</translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation>Unbekannt</translation>
    </message>
    <message>
        <source>Lenient / harsh</source>
        <translation>Nachsichtig / streng</translation>
    </message>
    <message>
        <source>Physics starts whose actions are replayed open loop in the world model (kosmos-cli fidelity --replays)</source>
        <translation>Physik-Starts, deren Aktionen ohne Rückkopplung im Weltmodell wiedergegeben werden (kosmos-cli fidelity --replays)</translation>
    </message>
    <message>
        <source>Open-loop replays:</source>
        <translation>Wiedergaben ohne Rückkopplung:</translation>
    </message>
    <message>
        <source>Fidelity compares two protocols of this ledger: policies in the physics world and the same policies from the same starts in a learned world model (kosmos-cli fidelity prepare; docs/fidelity.md).</source>
        <translation>Die Treue vergleicht zwei Protokolle dieses Ledgers: Policies in der Physik-Welt und dieselben Policies von denselben Starts in einem gelernten Weltmodell (kosmos-cli fidelity prepare; docs/fidelity.md).</translation>
    </message>
    <message>
        <source>Cannot compare these protocols: %1</source>
        <translation>Diese Protokolle lassen sich nicht vergleichen: %1</translation>
    </message>
    <message>
        <source>Replaying %1 starts in the world model...</source>
        <translation>%1 Starts werden im Weltmodell wiedergegeben ...</translation>
    </message>
    <message>
        <source>kosmos-cli fidelity failed: %1</source>
        <translation>kosmos-cli fidelity ist fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>No replay: no paired physics episode with frames and actions.</source>
        <translation>Keine Wiedergabe: keine gepaarte Physik-Episode mit Bildern und Aktionen.</translation>
    </message>
    <message>
        <source>%1 replays: PSNR %2 dB after the first step, %3 dB at step %4; SSIM %5 -&gt; %6.</source>
        <translation>%1 Wiedergaben: PSNR %2 dB nach dem ersten Schritt, %3 dB bei Schritt %4; SSIM %5 -&gt; %6.</translation>
    </message>
    <message>
        <source>Imagined runs without a verdict; of them, rollouts that failed validation and were never judged</source>
        <translation>Vorgestellte Läufe ohne Urteil; davon Rollouts, die die Validierung nicht bestanden und nie bewertet wurden</translation>
    </message>
    <message>
        <source>&lt;b&gt;No protocol of this ledger has physics labels&lt;/b&gt;, so there is no ground truth to compare a world model against. </source>
        <translation>&lt;b&gt;Kein Protokoll dieses Ledgers hat Physik-Labels&lt;/b&gt;, es gibt also keine Grundwahrheit, mit der ein Weltmodell verglichen werden könnte. </translation>
    </message>
    <message>
        <source>Choose two different protocols: the physics one (ground truth) and the imagined one (world model, judged).</source>
        <translation>Wählen Sie zwei verschiedene Protokolle: das physikalische (Grundwahrheit) und das vorgestellte (Weltmodell, bewertet).</translation>
    </message>
    <message>
        <source>Spread in physics: %1 distinguishable level(s) of %2 policies, %3 at 0%, %4 at 100%; physics states %5 of %6 pairwise orders.</source>
        <translation>Streuung in der Physik: %1 unterscheidbare Stufe(n) bei %2 Policies, %3 bei 0 %, %4 bei 100 %; die Physik legt %5 von %6 paarweisen Reihenfolgen fest.</translation>
    </message>
    <message>
        <source>NOT INFORMATIVE:</source>
        <translation>NICHT AUSSAGEKRÄFTIG:</translation>
    </message>
    <message>
        <source>the correlations and MMRV below say nothing about this world model's fidelity: %1.</source>
        <translation>die Korrelationen und die MMRV unten sagen nichts über die Treue dieses Weltmodells: %1.</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1 paired episodes&lt;/b&gt; (same policy, same start); unpaired %2 physics, %3 imagined.&lt;br&gt;Across the policies with a rate in both worlds, 95% bootstrap over starts (%4 replicates): &lt;b&gt;Pearson %5&lt;/b&gt;, Spearman %6, &lt;b&gt;MMRV %7&lt;/b&gt; (lower is better; it rests on the pairwise orders physics states). Anchors: WorldGym r = 0.78; SC3-Eval Pearson 0.929, MMRV 0.119.&lt;br&gt;Pairwise orders: %8 the same, %9 opposite, %10 indeterminate in a world.&lt;br&gt;Per episode: agreement %11 (n = %12), world-model success when physics failed %13, failure when physics succeeded %14.&lt;br&gt;&lt;i&gt;Both worlds are simulations: this is agreement with a physics reference, not evidence of real robot-task success.&lt;/i&gt;</source>
        <translation>&lt;b&gt;%1 gepaarte Episoden&lt;/b&gt; (gleiche Policy, gleicher Start); ungepaart %2 Physik, %3 vorgestellt.&lt;br&gt;Über die Policies mit einer Rate in beiden Welten, 95-%-Bootstrap über Starts (%4 Wiederholungen): &lt;b&gt;Pearson %5&lt;/b&gt;, Spearman %6, &lt;b&gt;MMRV %7&lt;/b&gt; (kleiner ist besser; sie beruht auf den paarweisen Reihenfolgen, die die Physik festlegt). Anker: WorldGym r = 0,78; SC3-Eval Pearson 0,929, MMRV 0,119.&lt;br&gt;Paarweise Reihenfolgen: %8 gleich, %9 umgekehrt, %10 in einer Welt unbestimmt.&lt;br&gt;Je Episode: Übereinstimmung %11 (n = %12), Erfolg im Weltmodell bei Fehlschlag in der Physik %13, Fehlschlag bei Erfolg in der Physik %14.&lt;br&gt;&lt;i&gt;Beide Welten sind Simulationen: Dies ist Übereinstimmung mit einer Physik-Referenz, kein Beleg für echten Roboter-Aufgabenerfolg.&lt;/i&gt;</translation>
    </message>
    <message>
        <source>Against recordings...</source>
        <translation>Gegen Aufzeichnungen...</translation>
    </message>
    <message>
        <source>Replay a LeRobot dataset's recorded actions open loop in a world model and compare its frames with the recorded ones (kosmos-cli fidelity replay)</source>
        <translation>Die aufgezeichneten Aktionen eines LeRobot-Datensatzes offen im Weltmodell abspielen und seine Frames mit den aufgezeichneten vergleichen (kosmos-cli fidelity replay)</translation>
    </message>
    <message>
        <source>A LeRobot dataset whose recorded episodes the world model replays</source>
        <translation>Ein LeRobot-Datensatz, dessen aufgezeichnete Episoden das Weltmodell abspielt</translation>
    </message>
    <message>
        <source>The world model's configuration ({"plugin", "settings"})</source>
        <translation>Die Konfiguration des Weltmodells ({"plugin", "settings"})</translation>
    </message>
    <message>
        <source>JSON (*.json)</source>
        <translation>JSON (*.json)</translation>
    </message>
    <message>
        <source>Replaying the recorded episodes of %1 in the world model...</source>
        <translation>Die aufgezeichneten Episoden von %1 werden im Weltmodell abgespielt...</translation>
    </message>
    <message>
        <source>kosmos-cli fidelity replay failed: %1</source>
        <translation>kosmos-cli fidelity replay ist fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>step (open-loop replay of recorded actions, against the recorded frames)</source>
        <translation>Schritt (offenes Abspielen aufgezeichneter Aktionen, gegen die aufgezeichneten Frames)</translation>
    </message>
    <message>
        <source>No replay: no episode of %1 has two frames.</source>
        <translation>Kein Abspielen: Keine Episode von %1 hat zwei Frames.</translation>
    </message>
    <message>
        <source>%1 recorded episodes of %2: PSNR %3 dB [%4, %5] after the first step, %6 dB [%7, %8] at step %9 (mean, 95% interval over episodes); how well the world model predicts recorded video, not evidence of success.</source>
        <translation>%1 aufgezeichnete Episoden von %2: PSNR %3 dB [%4, %5] nach dem ersten Schritt, %6 dB [%7, %8] bei Schritt %9 (Mittel, 95-%-Intervall über Episoden); wie gut das Weltmodell aufgezeichnetes Video vorhersagt, kein Beleg für Erfolg.</translation>
    </message>
    <message>
        <source>Judged by</source>
        <translation>Beurteilt von</translation>
    </message>
    <message>
        <source>Whose verdicts count, on both sides: the protocols' own judge, or another judge configuration of this ledger, whether the runs' own or re-judging their recorded rollouts (kosmos-cli judge --all ... --judge J.json; kosmos-cli fidelity --config)</source>
        <translation>Wessen Urteile zählen, auf beiden Seiten: der eigene Richter der Protokolle oder eine andere Richterkonfiguration dieses Ledgers, ob die der Läufe selbst oder eine, die ihre aufgezeichneten Rollouts neu beurteilt (kosmos-cli judge --all ... --judge J.json; kosmos-cli fidelity --config)</translation>
    </message>
    <message>
        <source>the protocols' own judge</source>
        <translation>der eigene Richter der Protokolle</translation>
    </message>
    <message>
        <source>%1: %2 (%3 judgments)</source>
        <translation>%1: %2 (%3 Urteile)</translation>
    </message>
    <message>
        <source>Choose the physics protocol (ground truth) and the imagined one (world model, judged).</source>
        <translation>Wählen Sie das Physikprotokoll (Grundwahrheit) und das imaginierte (Weltmodell, beurteilt).</translation>
    </message>
    <message>
        <source>[open loop] </source>
        <translation>[offene Schleife] </translation>
    </message>
    <message>
        <source>

In the world model, the actions this policy took in physics from each start were replayed open loop: it reads the simulator's state, which a world model does not give, or the imagined protocol was prepared with --open-loop. Its world-model rate says whether the world model and judge see success in those actions, not how it would react to imagined frames.</source>
        <translation>

Im Weltmodell wurden die Aktionen, die diese Policy in der Physik von jedem Start aus ausführte, in offener Schleife abgespielt: Sie liest den Zustand des Simulators, den ein Weltmodell nicht liefert, oder das imaginierte Protokoll wurde mit --open-loop vorbereitet. Ihre Weltmodell-Rate sagt, ob Weltmodell und Richter in diesen Aktionen Erfolg sehen, nicht wie sie auf imaginierte Frames reagieren würde.</translation>
    </message>
    <message>
        <source>&lt;b&gt;Judged by %1&lt;/b&gt; (each run's latest judgment by it, its own or a re-judgment of the recorded rollout); rollouts it has not judged, without a verdict: %2 imagined, %3 physics.&lt;br&gt;</source>
        <translation>&lt;b&gt;Beurteilt von %1&lt;/b&gt; (das jüngste Urteil dieser Konfiguration je Lauf, sein eigenes oder eine Neubeurteilung des aufgezeichneten Rollouts); Rollouts, die sie nicht beurteilt hat, ohne Urteil: %2 imaginiert, %3 Physik.&lt;br&gt;</translation>
    </message>
    <message>
        <source>The imagined actions replayed in physics cannot split this comparison: %1</source>
        <translation>Die in der Physik abgespielten imaginierten Aktionen können diesen Vergleich nicht aufteilen: %1</translation>
    </message>
    <message>
        <source>n/a</source>
        <translation>k. A.</translation>
    </message>
    <message>
        <source>&lt;b&gt;Where the disagreement comes from&lt;/b&gt; (%1: each policy's actions in the world model replayed in physics): of %2 pairs, %3 the policy acted otherwise on imagined frames, %4 the world model or the judge erred on the very actions (%5 lenient, %6 harsh), %7 agree by two errors that cancel; on its own actions the world model agrees with physics %8 (kappa %9). A diagnosis, counted for no goal.</source>
        <translation>&lt;b&gt;Woher die Abweichung kommt&lt;/b&gt; (%1: die Aktionen jeder Policy im Weltmodell, in der Physik abgespielt): von %2 Paaren handelte in %3 die Policy auf imaginierten Frames anders, in %4 irrten Weltmodell oder Richter bei genau diesen Aktionen (%5 nachsichtig, %6 streng), %7 stimmen durch zwei sich aufhebende Fehler überein; bei seinen eigenen Aktionen stimmt das Weltmodell mit der Physik %8 überein (Kappa %9). Eine Diagnose, für kein Ziel gezählt.</translation>
    </message>
    <message>
        <source>Goals</source>
        <translation>Ziele</translation>
    </message>
    <message>
        <source>(docs/fidelity.md; hover for each goal and its anchors):</source>
        <translation>(docs/fidelity.md; für jedes Ziel und seine Referenzwerte mit der Maus darüberfahren):</translation>
    </message>
    <message>
        <source>undecided</source>
        <translation>unentschieden</translation>
    </message>
    <message>
        <source>met</source>
        <translation>erfüllt</translation>
    </message>
    <message>
        <source>not met</source>
        <translation>nicht erfüllt</translation>
    </message>
    <message>
        <source>anchors:</source>
        <translation>Referenzwerte:</translation>
    </message>
    <message>
        <source>Of those errors on the very actions, the judge makes the same call on the physics frames of the actions in %1 of %2 (its own error on real frames).</source>
        <translation>Von diesen Fehlern bei genau diesen Aktionen trifft der Richter auf den Physik-Frames der Aktionen in %1 von %2 dasselbe Urteil (sein eigener Fehler auf echten Frames).</translation>
    </message>
</context>
<context>
    <name>kosmos::ui::FramePlayer</name>
    <message>
        <source>Loop</source>
        <translation>Schleife</translation>
    </message>
    <message>
        <source>Play</source>
        <translation>Abspielen</translation>
    </message>
    <message>
        <source>Play / pause (Space)</source>
        <translation>Abspielen / Pause (Leertaste)</translation>
    </message>
    <message>
        <source>Fit</source>
        <translation>Einpassen</translation>
    </message>
    <message>
        <source>Zoom: fit to the view (0), true size (1), in (+) and out (-); Ctrl+wheel zooms, dragging pans</source>
        <translation>Zoom: einpassen (0), Originalgröße (1), vergrößern (+) und verkleinern (-); Strg+Mausrad zoomt, Ziehen verschiebt</translation>
    </message>
    <message>
        <source>Reference recording (as imported; not generated)</source>
        <translation>Referenzaufnahme (wie importiert; nicht generiert)</translation>
    </message>
    <message>
        <source>Imported video, as given (the frames on the left are decoded from it)</source>
        <translation>Importiertes Video, unverändert (die Bilder links sind daraus dekodiert)</translation>
    </message>
    <message>
        <source>no frames</source>
        <translation>keine Bilder</translation>
    </message>
    <message>
        <source>frame %1 / %2</source>
        <translation>Bild %1 / %2</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>Pause</translation>
    </message>
    <message>
        <source>no policy image yet</source>
        <translation>noch kein Bild der Policy</translation>
    </message>
    <message>
        <source>The policy's %1, made at step %2: generated by the policy's model, not observed</source>
        <translation>%1 der Policy, erzeugt in Schritt %2: vom Modell der Policy generiert, nicht beobachtet</translation>
    </message>
</context>
<context>
    <name>kosmos::ui::FrameView</name>
    <message>
        <source>no frame</source>
        <translation>kein Bild</translation>
    </message>
</context>
<context>
    <name>kosmos::ui::LabelingDialog</name>
    <message>
        <source>Blind labeling</source>
        <translation>Blindes Labeln</translation>
    </message>
    <message>
        <source>Completion: M met, N not met, U uncertain. Progress: 0-5. Integrity: I intact, A artifact. Collision: C none visible, V visible. Enter saves and moves on, S skips. Frames: Left/Right, Space, Home/End.</source>
        <translation>Erfüllung: M erfüllt, N nicht erfüllt, U unsicher. Fortschritt: 0-5. Integrität: I intakt, A Artefakt. Kollision: C keine sichtbar, V sichtbar. Eingabe speichert und geht weiter, S überspringt. Bilder: Links/Rechts, Leertaste, Pos1/Ende.</translation>
    </message>
    <message>
        <source>All clips done: %1 labels saved.</source>
        <translation>Alle Clips erledigt: %1 Labels gespeichert.</translation>
    </message>
    <message>
        <source>Clip %1 of %2. Task: %3</source>
        <translation>Clip %1 von %2. Aufgabe: %3</translation>
    </message>
    <message>
        <source>completion -, progress -, integrity -, collision -</source>
        <translation>Erfüllung -, Fortschritt -, Integrität -, Kollision -</translation>
    </message>
    <message>
        <source>Completion (M/N/U) and progress (0-5) are needed before saving.</source>
        <translation>Vor dem Speichern werden Erfüllung (M/N/U) und Fortschritt (0-5) benötigt.</translation>
    </message>
    <message>
        <source>saved (%1 so far)</source>
        <translation>gespeichert (bisher %1)</translation>
    </message>
    <message>
        <source>completion %1, progress %2, integrity %3, collision %4</source>
        <translation>Erfüllung %1, Fortschritt %2, Integrität %3, Kollision %4</translation>
    </message>
</context>
<context>
    <name>kosmos::ui::LauncherDialog</name>
    <message>
        <source>Start</source>
        <translation>Starten</translation>
    </message>
    <message>
        <source>New batch</source>
        <translation>Neuer Stapel</translation>
    </message>
    <message>
        <source>closed loop (the policy sees predicted frames)</source>
        <translation>geschlossene Schleife (die Policy sieht vorhergesagte Bilder)</translation>
    </message>
    <message>
        <source>open loop (the policy sees the start frame only)</source>
        <translation>offene Schleife (die Policy sieht nur das Startbild)</translation>
    </message>
    <message>
        <source>Task id</source>
        <translation>Aufgaben-ID</translation>
    </message>
    <message>
        <source>Instruction</source>
        <translation>Anweisung</translation>
    </message>
    <message>
        <source>Start state (JSON)</source>
        <translation>Startzustand (JSON)</translation>
    </message>
    <message>
        <source>Protocol</source>
        <translation>Protokoll</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>Seed</translation>
    </message>
    <message>
        <source>Horizon (steps)</source>
        <translation>Horizont (Schritte)</translation>
    </message>
    <message>
        <source>Episodes per task</source>
        <translation>Episoden pro Aufgabe</translation>
    </message>
    <message>
        <source>Feedback</source>
        <translation>Rückkopplung</translation>
    </message>
    <message>
        <source>Add task</source>
        <translation>Aufgabe hinzufügen</translation>
    </message>
    <message>
        <source>Remove task</source>
        <translation>Aufgabe entfernen</translation>
    </message>
    <message>
        <source>Policies</source>
        <translation>Policies</translation>
    </message>
    <message>
        <source>Plugin</source>
        <translation>Plugin</translation>
    </message>
    <message>
        <source>Add policy</source>
        <translation>Policy hinzufügen</translation>
    </message>
    <message>
        <source>Remove policy</source>
        <translation>Policy entfernen</translation>
    </message>
    <message>
        <source>World model and judge</source>
        <translation>Weltmodell und Richter</translation>
    </message>
    <message>
        <source>World model</source>
        <translation>Weltmodell</translation>
    </message>
    <message>
        <source>Judge</source>
        <translation>Richter</translation>
    </message>
    <message>
        <source>Judge samples / quorum</source>
        <translation>Richter-Stichproben / Quorum</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>Gerät</translation>
    </message>
    <message>
        <source>Worker processes</source>
        <translation>Worker-Prozesse</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>Load...</source>
        <translation>Laden...</translation>
    </message>
    <message>
        <source>Save...</source>
        <translation>Speichern...</translation>
    </message>
    <message>
        <source>Check</source>
        <translation>Prüfen</translation>
    </message>
    <message>
        <source>Load a protocol</source>
        <translation>Ein Protokoll laden</translation>
    </message>
    <message>
        <source>Protocols (*.json)</source>
        <translation>Protokolle (*.json)</translation>
    </message>
    <message>
        <source>%1 is not a JSON object</source>
        <translation>%1 ist kein JSON-Objekt</translation>
    </message>
    <message>
        <source>Save the protocol</source>
        <translation>Das Protokoll speichern</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>(keiner)</translation>
    </message>
    <message>
        <source>task %1: the start state is not valid JSON</source>
        <translation>Aufgabe %1: der Startzustand ist kein gültiges JSON</translation>
    </message>
    <message>
        <source>policy %1 settings: %2</source>
        <translation>Einstellungen von Policy %1: %2</translation>
    </message>
    <message>
        <source>world model settings: %1</source>
        <translation>Einstellungen des Weltmodells: %1</translation>
    </message>
    <message>
        <source>judge settings: %1</source>
        <translation>Einstellungen des Richters: %1</translation>
    </message>
    <message>
        <source>refused: %1</source>
        <translation>abgelehnt: %1</translation>
    </message>
    <message>
        <source>%1 runs; %2 already finished in this ledger, %3 to run. Generated rollouts are not evidence of real robot-task success.</source>
        <translation>%1 Läufe; %2 in diesem Ledger bereits beendet, %3 auszuführen. Generierte Rollouts sind kein Beleg für echten Erfolg eines Roboters bei der Aufgabe.</translation>
    </message>
    <message>
        <source>%1 runs (policies x tasks x episodes). Check to see how many this ledger already finished.</source>
        <translation>%1 Läufe (Policies x Aufgaben x Episoden). Prüfen zeigt, wie viele dieses Ledger bereits beendet hat.</translation>
    </message>
    <message>
        <source>None of the chosen plugins can use CUDA (only libtorch plugins of a CUDA build can); they run on the CPU.</source>
        <translation>Keines der gewählten Plugins kann CUDA nutzen (nur libtorch-Plugins eines CUDA-Builds können es); sie laufen auf der CPU.</translation>
    </message>
    <message>
        <source>Where it runs</source>
        <translation>Wo es läuft</translation>
    </message>
    <message>
        <source>This machine</source>
        <translation>Dieser Rechner</translation>
    </message>
    <message>
        <source>Slurm cluster (shards)</source>
        <translation>Slurm-Cluster (Shards)</translation>
    </message>
    <message>
        <source>One Slurm array task per shard; each writes a ledger of its own, merged into this ledger when all have ended</source>
        <translation>Eine Slurm-Array-Aufgabe je Shard; jede schreibt ein eigenes Ledger, das in dieses Ledger zusammengeführt wird, wenn alle beendet sind</translation>
    </message>
    <message>
        <source>the cluster's default</source>
        <translation>Voreinstellung des Clusters</translation>
    </message>
    <message>
        <source>GPUs per shard task (--gres gpu:N); 0: none requested</source>
        <translation>GPUs je Shard-Aufgabe (--gres gpu:N); 0: keine angefordert</translation>
    </message>
    <message>
        <source>e.g. 04:00:00 (the partition's default when empty)</source>
        <translation>z. B. 04:00:00 (leer: Voreinstellung der Partition)</translation>
    </message>
    <message>
        <source>Target</source>
        <translation>Ziel</translation>
    </message>
    <message>
        <source>Shards</source>
        <translation>Shards</translation>
    </message>
    <message>
        <source>Partition</source>
        <translation>Partition</translation>
    </message>
    <message>
        <source>GPUs per task</source>
        <translation>GPUs je Aufgabe</translation>
    </message>
    <message>
        <source>Time limit</source>
        <translation>Zeitlimit</translation>
    </message>
    <message>
        <source>%1 (cannot load: %2)</source>
        <translation>%1 (lässt sich nicht laden: %2)</translation>
    </message>
    <message>
        <source>%1 (%2) cannot run with these settings: %3</source>
        <translation>%1 (%2) kann mit diesen Einstellungen nicht laufen: %3</translation>
    </message>
    <message>
        <source>policy %1</source>
        <translation>Policy %1</translation>
    </message>
    <message>
        <source>world model</source>
        <translation>Weltmodell</translation>
    </message>
    <message>
        <source>judge</source>
        <translation>Richter</translation>
    </message>
    <message>
        <source>policy form</source>
        <translation>Policy-Formular</translation>
    </message>
    <message>
        <source>%1 can run with these settings: Add policy.</source>
        <translation>%1 kann mit diesen Einstellungen laufen: Policy hinzufügen.</translation>
    </message>
    <message>
        <source>%1 cannot run with these settings: %2</source>
        <translation>%1 kann mit diesen Einstellungen nicht laufen: %2</translation>
    </message>
    <message>
        <source>Checking whether %1 can run with these settings...</source>
        <translation>Prüfe, ob %1 mit diesen Einstellungen laufen kann ...</translation>
    </message>
    <message>
        <source>task %1: the task id is empty</source>
        <translation>Aufgabe %1: die Aufgaben-ID ist leer</translation>
    </message>
    <message>
        <source>task %1: the task id %2 is used twice</source>
        <translation>Aufgabe %1: die Aufgaben-ID %2 kommt zweimal vor</translation>
    </message>
    <message>
        <source>task %1: the instruction is empty</source>
        <translation>Aufgabe %1: die Anweisung ist leer</translation>
    </message>
    <message>
        <source>Add a task (a world that knows its tasks offers them when it is chosen).</source>
        <translation>Fügen Sie eine Aufgabe hinzu (eine Welt, die ihre Aufgaben kennt, bietet sie an, sobald sie gewählt wird).</translation>
    </message>
    <message>
        <source>Add a policy: choose its plugin and settings, then Add policy.</source>
        <translation>Fügen Sie eine Policy hinzu: Plugin und Einstellungen wählen, dann Policy hinzufügen.</translation>
    </message>
    <message>
        <source>The judge needs at least 16 frames: set the horizon to 15 steps or more.</source>
        <translation>Der Richter braucht mindestens 16 Bilder: Setzen Sie den Horizont auf 15 Schritte oder mehr.</translation>
    </message>
    <message>
        <source>Give the batch a name.</source>
        <translation>Geben Sie dem Stapel einen Namen.</translation>
    </message>
    <message>
        <source>task %1: the start state must be a JSON object, such as {}</source>
        <translation>Aufgabe %1: der Startzustand muss ein JSON-Objekt sein, etwa {}</translation>
    </message>
    <message>
        <source>Episodes each worker runs in lockstep: one call of a batched policy or world model (torch.generic_*) for all of them; the others are called per episode. The runs are the same as with 1.</source>
        <translation>Episoden, die jeder Worker im Gleichschritt ausführt: ein Aufruf einer gebündelten Policy oder eines gebündelten Weltmodells (torch.generic_*) für alle; die anderen werden je Episode aufgerufen. Die Läufe sind dieselben wie mit 1.</translation>
    </message>
    <message>
        <source>Episodes in lockstep per worker</source>
        <translation>Episoden im Gleichschritt je Worker</translation>
    </message>
</context>
<context>
    <name>kosmos::ui::MainWindow</name>
    <message>
        <source>Kosmos Workstation</source>
        <translation>Kosmos Workstation</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Datei</translation>
    </message>
    <message>
        <source>&amp;Open ledger...</source>
        <translation>Ledger ö&amp;ffnen...</translation>
    </message>
    <message>
        <source>Open a ledger bundle (NAME.kosmos)</source>
        <translation>Ein Ledger-Bündel öffnen (NAME.kosmos)</translation>
    </message>
    <message>
        <source>Open &amp;recent</source>
        <translation>&amp;Zuletzt geöffnet</translation>
    </message>
    <message>
        <source>&amp;Export current run...</source>
        <translation>Aktuellen Lauf &amp;exportieren...</translation>
    </message>
    <message>
        <source>&amp;Settings...</source>
        <translation>&amp;Einstellungen...</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Beenden</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>&amp;Ansicht</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>&amp;Hilfe</translation>
    </message>
    <message>
        <source>&amp;About Kosmos</source>
        <translation>&amp;Über Kosmos</translation>
    </message>
    <message>
        <source>%1 - Kosmos Workstation</source>
        <translation>%1 - Kosmos Workstation</translation>
    </message>
    <message>
        <source>%1: %2 runs, %3 artifacts; opened read-only (review never writes to the ledger)</source>
        <translation>%1: %2 Läufe, %3 Artefakte; schreibgeschützt geöffnet (die Durchsicht schreibt nie in das Ledger)</translation>
    </message>
    <message>
        <source>Cannot open %1: %2</source>
        <translation>%1 kann nicht geöffnet werden: %2</translation>
    </message>
    <message>
        <source>Cannot open ledger</source>
        <translation>Ledger kann nicht geöffnet werden</translation>
    </message>
    <message>
        <source>Cannot compare: %1</source>
        <translation>Vergleich nicht möglich: %1</translation>
    </message>
    <message>
        <source>&lt;b&gt;Kosmos Workstation %1&lt;/b&gt;&lt;br&gt;Auditable evaluation of robot policies through learned world models.&lt;br&gt;&lt;br&gt;Qt %2&lt;br&gt;SQLite %3&lt;br&gt;OpenCV %4&lt;br&gt;FFmpeg libavformat %5, libavcodec %6</source>
        <translation>&lt;b&gt;Kosmos Workstation %1&lt;/b&gt;&lt;br&gt;Nachprüfbare Bewertung von Roboter-Policies in gelernten Weltmodellen.&lt;br&gt;&lt;br&gt;Qt %2&lt;br&gt;SQLite %3&lt;br&gt;OpenCV %4&lt;br&gt;FFmpeg libavformat %5, libavcodec %6</translation>
    </message>
    <message>
        <source>About Kosmos</source>
        <translation>Über Kosmos</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>A&amp;usführen</translation>
    </message>
    <message>
        <source>Runs are still going</source>
        <translation>Läufe sind noch aktiv</translation>
    </message>
    <message>
        <source>A batch is still running in worker processes. Cancel its runs, or leave them running (the next launch shows their progress)?</source>
        <translation>Ein Stapel läuft noch in Worker-Prozessen. Seine Läufe abbrechen oder weiterlaufen lassen (der nächste Start zeigt ihren Fortschritt)?</translation>
    </message>
    <message>
        <source>Cancel the runs</source>
        <translation>Die Läufe abbrechen</translation>
    </message>
    <message>
        <source>Leave them running</source>
        <translation>Weiterlaufen lassen</translation>
    </message>
    <message>
        <source>Don't close</source>
        <translation>Nicht schließen</translation>
    </message>
    <message>
        <source>&amp;New ledger...</source>
        <translation>&amp;Neues Ledger...</translation>
    </message>
    <message>
        <source>New ledger bundle (a folder NAME.kosmos)</source>
        <translation>Neues Ledger-Bündel (ein Ordner NAME.kosmos)</translation>
    </message>
    <message>
        <source>Kosmos ledgers (*.kosmos)</source>
        <translation>Kosmos-Ledger (*.kosmos)</translation>
    </message>
    <message>
        <source>Cannot create %1: %2</source>
        <translation>%1 kann nicht angelegt werden: %2</translation>
    </message>
    <message>
        <source>&amp;Label clips blind...</source>
        <translation>Clips blind &amp;labeln...</translation>
    </message>
    <message>
        <source>Compare with the same start in another &amp;world</source>
        <translation>Mit demselben Start in einer anderen &amp;Welt vergleichen</translation>
    </message>
    <message>
        <source>No completed run of the same instruction from the same start in another world model.</source>
        <translation>Kein abgeschlossener Lauf derselben Anweisung vom selben Start in einem anderen Weltmodell.</translation>
    </message>
    <message>
        <source>Run %1 beside run %2 in %3 (the same %4)</source>
        <translation>Lauf %1 neben Lauf %2 in %3 (derselbe %4)</translation>
    </message>
    <message>
        <source>episode seed</source>
        <translation>Episoden-Seed</translation>
    </message>
    <message>
        <source>recorded start state</source>
        <translation>aufgezeichnete Startzustand</translation>
    </message>
    <message>
        <source>&amp;Compare the selected runs</source>
        <translation>Gewählte Läufe &amp;vergleichen</translation>
    </message>
    <message>
        <source>Workspaces</source>
        <translation>Arbeitsbereiche</translation>
    </message>
    <message>
        <source>&amp;Review</source>
        <translation>&amp;Durchsicht</translation>
    </message>
    <message>
        <source>&amp;Compare</source>
        <translation>&amp;Vergleich</translation>
    </message>
    <message>
        <source>&amp;Evaluate</source>
        <translation>&amp;Auswertung</translation>
    </message>
    <message>
        <source>R&amp;un</source>
        <translation>A&amp;usführen</translation>
    </message>
    <message>
        <source>Runs, frames and traces, verdicts, provenance, bookmarks and events</source>
        <translation>Läufe, Bilder und Verläufe, Urteile, Herkunft, Lesezeichen und Ereignisse</translation>
    </message>
    <message>
        <source>Two runs side by side on one timeline</source>
        <translation>Zwei Läufe nebeneinander auf einer Zeitachse</translation>
    </message>
    <message>
        <source>Judge calibration, paired audit, policy ranking, fidelity</source>
        <translation>Kalibrierung des Bewerters, gepaartes Audit, Policy-Rangfolge, Treue</translation>
    </message>
    <message>
        <source>Batch progress: workers, shards, resources</source>
        <translation>Stapelfortschritt: Worker, Shards, Ressourcen</translation>
    </message>
    <message>
        <source>Export the &amp;selected runs...</source>
        <translation>&amp;Gewählte Läufe exportieren...</translation>
    </message>
    <message>
        <source>Compare shows two runs: the first two of the %1 selected</source>
        <translation>Der Vergleich zeigt zwei Läufe: die ersten zwei der %1 gewählten</translation>
    </message>
    <message>
        <source>%1: %2 runs, %3 artifacts</source>
        <translation>%1: %2 Läufe, %3 Artefakte</translation>
    </message>
    <message>
        <source>ledger cannot be read: %1</source>
        <translation>Ledger nicht lesbar: %1</translation>
    </message>
    <message>
        <source>%1: %2 runs, %3 artifacts, as the batch writes them; read here read-only</source>
        <translation>%1: %2 Läufe, %3 Artefakte, während der Stapel sie schreibt; hier nur lesend geöffnet</translation>
    </message>
    <message>
        <source>Open a ledger or a LeRobot dataset: File &gt; Open, drag a NAME.kosmos or dataset folder here, or pass it on the command line.</source>
        <translation>Öffnen Sie ein Ledger oder einen LeRobot-Datensatz: Datei &gt; Öffnen, einen NAME.kosmos- oder Datensatzordner hierher ziehen oder ihn auf der Kommandozeile angeben.</translation>
    </message>
    <message>
        <source>&amp;Dataset</source>
        <translation>&amp;Datensatz</translation>
    </message>
    <message>
        <source>A LeRobot dataset's episodes, cameras and traces, read in place (File &gt; Open dataset...)</source>
        <translation>Episoden, Kameras und Verläufe eines LeRobot-Datensatzes, an Ort und Stelle gelesen (Datei &gt; Datensatz öffnen...)</translation>
    </message>
    <message>
        <source>Open &amp;dataset...</source>
        <translation>&amp;Datensatz öffnen...</translation>
    </message>
    <message>
        <source>Open a LeRobot dataset (a folder with meta/info.json)</source>
        <translation>Einen LeRobot-Datensatz öffnen (ein Ordner mit meta/info.json)</translation>
    </message>
    <message>
        <source>Export the shown e&amp;pisode...</source>
        <translation>Die angezeigte E&amp;pisode exportieren...</translation>
    </message>
    <message>
        <source>Cannot open dataset</source>
        <translation>Datensatz kann nicht geöffnet werden</translation>
    </message>
    <message>
        <source>%1 (dataset) - Kosmos Workstation</source>
        <translation>%1 (Datensatz) - Kosmos Workstation</translation>
    </message>
    <message>
        <source>%1: LeRobot %2 dataset, %3 episodes; read in place, read-only (import episodes to evaluate them)</source>
        <translation>%1: LeRobot-Datensatz %2, %3 Episoden; an Ort und Stelle gelesen, nur lesend (Episoden importieren, um sie auszuwerten)</translation>
    </message>
</context>
<context>
    <name>kosmos::ui::PluginCatalog</name>
    <message>
        <source>cannot list plugins with %1: %2</source>
        <translation>Plugins können mit %1 nicht aufgelistet werden: %2</translation>
    </message>
    <message>
        <source>kosmos-cli plugins --json printed something that is not a JSON list</source>
        <translation>kosmos-cli plugins --json gab etwas aus, das keine JSON-Liste ist</translation>
    </message>
    <message>
        <source>the test process ended abnormally: </source>
        <translation>der Testprozess endete abnormal: </translation>
    </message>
    <message>
        <source>the check ended abnormally: %1</source>
        <translation>die Prüfung endete abnormal: %1</translation>
    </message>
</context>
<context>
    <name>kosmos::ui::PluginManagerDialog</name>
    <message>
        <source>Test once</source>
        <translation>Einmal testen</translation>
    </message>
    <message>
        <source>Plugins</source>
        <translation>Plugins</translation>
    </message>
    <message>
        <source>Plugin</source>
        <translation>Plugin</translation>
    </message>
    <message>
        <source>Family</source>
        <translation>Familie</translation>
    </message>
    <message>
        <source>Version</source>
        <translation>Version</translation>
    </message>
    <message>
        <source>API</source>
        <translation>API</translation>
    </message>
    <message>
        <source>Requires</source>
        <translation>Benötigt</translation>
    </message>
    <message>
        <source>Available</source>
        <translation>Verfügbar</translation>
    </message>
    <message>
        <source>Reason / file</source>
        <translation>Grund / Datei</translation>
    </message>
    <message>
        <source>Test once runs one step of the selected adapter, with the settings above, in a process of its own, and shows its timing and memory. It is a smoke test: it says nothing about whether a policy succeeds at a task.</source>
        <translation>Einmal testen führt einen Schritt des gewählten Adapters mit den Einstellungen oben in einem eigenen Prozess aus und zeigt Zeit und Speicher. Es ist ein Rauchtest: er sagt nichts darüber, ob eine Policy eine Aufgabe löst.</translation>
    </message>
    <message>
        <source>Rescan</source>
        <translation>Neu suchen</translation>
    </message>
    <message>
        <source>Settings for the test:</source>
        <translation>Einstellungen für den Test:</translation>
    </message>
    <message>
        <source>testing %1 ...</source>
        <translation>%1 wird getestet ...</translation>
    </message>
    <message>
        <source>%1: one step ok</source>
        <translation>%1: ein Schritt in Ordnung</translation>
    </message>
    <message>
        <source>%1: FAILED</source>
        <translation>%1: FEHLGESCHLAGEN</translation>
    </message>
    <message>
        <source>error: %1</source>
        <translation>Fehler: %1</translation>
    </message>
    <message>
        <source>created in %1 ms</source>
        <translation>erzeugt in %1 ms</translation>
    </message>
    <message>
        <source>one step in %1 ms</source>
        <translation>ein Schritt in %1 ms</translation>
    </message>
    <message>
        <source>peak memory (RSS) %1 MiB</source>
        <translation>maximaler Speicher (RSS) %1 MiB</translation>
    </message>
    <message>
        <source>A smoke test of the adapter only: not evidence of robot-task success.</source>
        <translation>Nur ein Rauchtest des Adapters: kein Beleg für Erfolg eines Roboters bei einer Aufgabe.</translation>
    </message>
    <message>
        <source>nothing</source>
        <translation>nichts</translation>
    </message>
    <message>
        <source>available</source>
        <translation>verfügbar</translation>
    </message>
    <message>
        <source>UNAVAILABLE</source>
        <translation>NICHT VERFÜGBAR</translation>
    </message>
    <message>
        <source>available with the tested settings</source>
        <translation>verfügbar mit den getesteten Einstellungen</translation>
    </message>
    <message>
        <source>needs settings</source>
        <translation>braucht Einstellungen</translation>
    </message>
</context>
<context>
    <name>kosmos::ui::ProgressPanel</name>
    <message>
        <source>Cancel run</source>
        <translation>Lauf abbrechen</translation>
    </message>
    <message>
        <source>Cancel batch</source>
        <translation>Stapel abbrechen</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>Lauf</translation>
    </message>
    <message>
        <source>Task</source>
        <translation>Aufgabe</translation>
    </message>
    <message>
        <source>Policy</source>
        <translation>Policy</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>Stage</source>
        <translation>Phase</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>Schritte</translation>
    </message>
    <message>
        <source>Worker</source>
        <translation>Worker</translation>
    </message>
    <message>
        <source>No batch running. Run &gt; New batch... starts one.</source>
        <translation>Kein Stapel aktiv. Ausführen &gt; Neuer Stapel... startet einen.</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; (%2)</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; (%2)</translation>
    </message>
    <message>
        <source>%1 completed, %2 failed, %3 cancelled, %4 running, %5 queued; elapsed %6%7</source>
        <translation>%1 abgeschlossen, %2 fehlgeschlagen, %3 abgebrochen, %4 laufend, %5 wartend; vergangen %6%7</translation>
    </message>
    <message>
        <source>, about %1 left</source>
        <translation>, noch etwa %1</translation>
    </message>
    <message>
        <source> (cancelling)</source>
        <translation> (wird abgebrochen)</translation>
    </message>
    <message>
        <source>CPU %1%</source>
        <translation>CPU %1%</translation>
    </message>
    <message>
        <source>CPU -</source>
        <translation>CPU -</translation>
    </message>
    <message>
        <source>, cuda:%1 %2 MiB</source>
        <translation>, cuda:%1 %2 MiB</translation>
    </message>
    <message>
        <source>worker %1: %2, RSS %3 MiB%4</source>
        <translation>Worker %1: %2, RSS %3 MiB%4</translation>
    </message>
    <message>
        <source>
Slurm: %1 shards: %2 done, %3 running, %4 waiting; merge job %5</source>
        <translation>
Slurm: %1 Shards: %2 fertig, %3 laufen, %4 warten; Zusammenführungs-Job %5</translation>
    </message>
    <message>
        <source>not in the queue</source>
        <translation>nicht in der Warteschlange</translation>
    </message>
    <message>
        <source>shard %1: %2</source>
        <translation>Shard %1: %2</translation>
    </message>
    <message>
        <source>Choose a run in the list to cancel it.</source>
        <translation>Wählen Sie einen Lauf in der Liste, um ihn abzubrechen.</translation>
    </message>
    <message>
        <source>Run %1: cancel requested; its worker stops it at the next step.</source>
        <translation>Lauf %1: Abbruch angefordert; sein Worker stoppt ihn beim nächsten Schritt.</translation>
    </message>
    <message>
        <source>Run %1 was not cancelled: it has already finished.</source>
        <translation>Lauf %1 wurde nicht abgebrochen: Er ist bereits beendet.</translation>
    </message>
    <message>
        <source>Run %1 was not cancelled: %2</source>
        <translation>Lauf %1 wurde nicht abgebrochen: %2</translation>
    </message>
    <message>
        <source>
Showing %1 of %2 runs: the running ones, the next queued, the latest finished.</source>
        <translation>
Gezeigt: %1 von %2 Läufen: die laufenden, die nächsten wartenden, die zuletzt beendeten.</translation>
    </message>
    <message>
        <source>%1 (%p% of steps)</source>
        <translation>%1 (%p % der Schritte)</translation>
    </message>
    <message>
        <source>%1 of %2 runs completed</source>
        <translation>%1 von %2 Läufen abgeschlossen</translation>
    </message>
    <message>
        <source>, %1 failed</source>
        <translation>, %1 fehlgeschlagen</translation>
    </message>
    <message>
        <source>, %1 cancelled</source>
        <translation>, %1 abgebrochen</translation>
    </message>
    <message>
        <source>Throughput per worker (each stage's share of the work; store runs beside the rollout):
%1</source>
        <translation>Durchsatz je Worker (Anteil jeder Stufe an der Arbeit; das Speichern läuft neben dem Rollout):
%1</translation>
    </message>
</context>
<context>
    <name>kosmos::ui::ProvenancePanel</name>
    <message>
        <source>Verify artifacts</source>
        <translation>Artefakte prüfen</translation>
    </message>
    <message>
        <source>Item</source>
        <translation>Eintrag</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>Wert</translation>
    </message>
    <message>
        <source>Detail</source>
        <translation>Detail</translation>
    </message>
    <message>
        <source>Run %1</source>
        <translation>Lauf %1</translation>
    </message>
    <message>
        <source>protocol %1</source>
        <translation>Protokoll %1</translation>
    </message>
    <message>
        <source>Components</source>
        <translation>Komponenten</translation>
    </message>
    <message>
        <source>config %1, weights %2</source>
        <translation>Konfiguration %1, Gewichte %2</translation>
    </message>
    <message>
        <source>Attempts</source>
        <translation>Versuche</translation>
    </message>
    <message>
        <source>attempt %1 (%2)</source>
        <translation>Versuch %1 (%2)</translation>
    </message>
    <message>
        <source>started</source>
        <translation>begonnen</translation>
    </message>
    <message>
        <source>finished</source>
        <translation>beendet</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 s</translation>
    </message>
    <message>
        <source>seal</source>
        <translation>Siegel</translation>
    </message>
    <message>
        <source>timings</source>
        <translation>Zeiten</translation>
    </message>
    <message>
        <source>%1 ms total</source>
        <translation>%1 ms gesamt</translation>
    </message>
    <message>
        <source>device %1, peak RSS %2 MiB</source>
        <translation>Gerät %1, maximaler RSS %2 MiB</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 ms</translation>
    </message>
    <message>
        <source>Artifacts of the latest attempt (%1)</source>
        <translation>Artefakte des letzten Versuchs (%1)</translation>
    </message>
    <message>
        <source>%1 bytes, %2</source>
        <translation>%1 Bytes, %2</translation>
    </message>
    <message>
        <source>sha256 %1, pixels %2</source>
        <translation>sha256 %1, Pixel %2</translation>
    </message>
    <message>
        <source>derived</source>
        <translation>abgeleitet</translation>
    </message>
    <message>
        <source>%1 of %2 artifacts FAILED verification</source>
        <translation>%1 von %2 Artefakten haben die Prüfung NICHT bestanden</translation>
    </message>
    <message>
        <source>all %1 artifacts verified</source>
        <translation>alle %1 Artefakte geprüft</translation>
    </message>
    <message>
        <source>host %1</source>
        <translation>Rechner %1</translation>
    </message>
    <message>
        <source>, Slurm job %1 (array %2, task %3)</source>
        <translation>, Slurm-Job %1 (Array %2, Aufgabe %3)</translation>
    </message>
    <message>
        <source>merged from</source>
        <translation>zusammengeführt aus</translation>
    </message>
    <message>
        <source>shard %1</source>
        <translation>Shard %1</translation>
    </message>
    <message>
        <source>a ledger</source>
        <translation>einem Ledger</translation>
    </message>
    <message>
        <source>source</source>
        <translation>Quelle</translation>
    </message>
    <message>
        <source>its attempt %1</source>
        <translation>dort Versuch %1</translation>
    </message>
    <message>
        <source>Select an item to read its values in full</source>
        <translation>Wählen Sie einen Eintrag, um seine Werte vollständig zu lesen</translation>
    </message>
</context>
<context>
    <name>kosmos::ui::ReviewWorkspace</name>
    <message>
        <source>Bookmark this frame</source>
        <translation>Lesezeichen für dieses Bild</translation>
    </message>
    <message>
        <source>Bookmark</source>
        <translation>Lesezeichen</translation>
    </message>
    <message>
        <source>Name:</source>
        <translation>Name:</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>Läufe</translation>
    </message>
    <message>
        <source>Verdicts</source>
        <translation>Urteile</translation>
    </message>
    <message>
        <source>Provenance</source>
        <translation>Herkunft</translation>
    </message>
    <message>
        <source>Bookmarks</source>
        <translation>Lesezeichen</translation>
    </message>
    <message>
        <source>Events</source>
        <translation>Ereignisse</translation>
    </message>
    <message>
        <source>run %1: %2 frames, %3 actions%4</source>
        <translation>Lauf %1: %2 Bilder, %3 Aktionen%4</translation>
    </message>
    <message>
        <source>, validation %1</source>
        <translation>, Validierung %1</translation>
    </message>
    <message>
        <source>run %1 cannot be shown completely: %2</source>
        <translation>Lauf %1 kann nicht vollständig angezeigt werden: %2</translation>
    </message>
    <message>
        <source>The bookmark was not saved (the ledger cannot be written): %1</source>
        <translation>Das Lesezeichen wurde nicht gespeichert (das Ledger ist nicht beschreibbar): %1</translation>
    </message>
    <message>
        <source>Compare the first two selected</source>
        <translation>Die ersten zwei gewählten vergleichen</translation>
    </message>
    <message>
        <source>Compare with the same start</source>
        <translation>Mit demselben Start vergleichen</translation>
    </message>
    <message>
        <source>Export %1 run(s)...</source>
        <translation>%1 Lauf/Läufe exportieren...</translation>
    </message>
    <message>
        <source>Retry the failed ones</source>
        <translation>Die fehlgeschlagenen wiederholen</translation>
    </message>
    <message>
        <source>Label blind...</source>
        <translation>Blind beschriften...</translation>
    </message>
    <message>
        <source>Judge again with another judge...</source>
        <translation>Mit einem anderen Bewerter erneut bewerten...</translation>
    </message>
    <message>
        <source>A judge configuration (as kosmos-cli judge --judge takes)</source>
        <translation>Eine Bewerter-Konfiguration (wie sie kosmos-cli judge --judge nimmt)</translation>
    </message>
    <message>
        <source>Judge configurations (*.json)</source>
        <translation>Bewerter-Konfigurationen (*.json)</translation>
    </message>
    <message>
        <source>Copy run keys</source>
        <translation>Laufschlüssel kopieren</translation>
    </message>
    <message>
        <source>%1 failed run(s) queued for a new attempt (their failed attempts stay recorded)</source>
        <translation>%1 fehlgeschlagene(r) Lauf/Läufe für einen neuen Versuch eingereiht (die fehlgeschlagenen Versuche bleiben aufgezeichnet)</translation>
    </message>
    <message>
        <source>Cannot judge again: %1</source>
        <translation>Erneutes Bewerten nicht möglich: %1</translation>
    </message>
    <message>
        <source>kosmos-cli was not found</source>
        <translation>kosmos-cli wurde nicht gefunden</translation>
    </message>
    <message>
        <source>Judging %1 run(s) again with %2...</source>
        <translation>%1 Lauf/Läufe werden mit %2 erneut bewertet...</translation>
    </message>
    <message>
        <source>%1 run key(s) copied</source>
        <translation>%1 Laufschlüssel kopiert</translation>
    </message>
    <message>
        <source>Blind labeling</source>
        <translation>Blindes Labeln</translation>
    </message>
    <message>
        <source>Annotator id:</source>
        <translation>Annotator-ID:</translation>
    </message>
    <message>
        <source>%1 human labels saved</source>
        <translation>%1 menschliche Labels gespeichert</translation>
    </message>
    <message>
        <source>Labeling needs a writable ledger: %1</source>
        <translation>Labeln braucht ein beschreibbares Ledger: %1</translation>
    </message>
    <message>
        <source>Exported %1 run(s) to %2, one folder each</source>
        <translation>%1 Lauf/Läufe nach %2 exportiert, je ein Ordner</translation>
    </message>
    <message>
        <source>Exporting run %1...</source>
        <translation>Lauf %1 wird exportiert...</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>Export cancelled after %1 frames</source>
        <translation>Export nach %1 Bildern abgebrochen</translation>
    </message>
    <message>
        <source>Exported %1 frames and %2 actions to %3</source>
        <translation>%1 Bilder und %2 Aktionen nach %3 exportiert</translation>
    </message>
    <message>
        <source>Export failed: %1</source>
        <translation>Export fehlgeschlagen: %1</translation>
    </message>
</context>
<context>
    <name>kosmos::ui::RunController</name>
    <message>
        <source>cannot save the protocol to %1: %2</source>
        <translation>das Protokoll kann nicht nach %1 gespeichert werden: %2</translation>
    </message>
    <message>
        <source>open a ledger first</source>
        <translation>zuerst ein Ledger öffnen</translation>
    </message>
    <message>
        <source>cannot start %1: %2</source>
        <translation>%1 kann nicht gestartet werden: %2</translation>
    </message>
    <message>
        <source>sbatch is not on PATH: this machine cannot submit to a Slurm cluster (install slurm-client and its cluster's slurm.conf)</source>
        <translation>sbatch ist nicht im PATH: dieser Rechner kann nichts an einen Slurm-Cluster übergeben (installieren Sie slurm-client und die slurm.conf des Clusters)</translation>
    </message>
    <message>
        <source>kosmos-cli submit failed: %1</source>
        <translation>kosmos-cli submit ist fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>cannot start %1 merge: %2</source>
        <translation>%1 merge kann nicht gestartet werden: %2</translation>
    </message>
    <message>
        <source>a run of a sharded batch is cancelled with its whole batch (scancel)</source>
        <translation>ein Lauf eines aufgeteilten Stapels wird nur mit dem ganzen Stapel abgebrochen (scancel)</translation>
    </message>
    <message>
        <source>runs are still being judged again</source>
        <translation>Läufe werden noch erneut bewertet</translation>
    </message>
    <message>
        <source>no ledger or no runs to judge</source>
        <translation>kein Ledger oder keine Läufe zum Bewerten</translation>
    </message>
    <message>
        <source>run %1: %2</source>
        <translation>Lauf %1: %2</translation>
    </message>
</context>
<context>
    <name>kosmos::ui::RunWorkspace</name>
    <message>
        <source>Running rollouts needs kosmos-cli, the engine, beside the workstation; it was not found.</source>
        <translation>Rollouts auszuführen braucht kosmos-cli, die Engine, neben der Workstation; es wurde nicht gefunden.</translation>
    </message>
    <message>
        <source>New batch...</source>
        <translation>Neuer Stapel...</translation>
    </message>
    <message>
        <source>Plugins...</source>
        <translation>Plugins...</translation>
    </message>
    <message>
        <source>Retry selected failed runs</source>
        <translation>Gewählte fehlgeschlagene Läufe wiederholen</translation>
    </message>
    <message>
        <source>kosmos-cli, the engine that runs rollouts, was not found</source>
        <translation>kosmos-cli, die Engine, die Rollouts ausführt, wurde nicht gefunden</translation>
    </message>
    <message>
        <source>Batches run in kosmos-cli worker processes (or Slurm shards); their progress is followed here through the ledger.</source>
        <translation>Stapel laufen in kosmos-cli-Worker-Prozessen (oder Slurm-Shards); ihr Fortschritt wird hier über das Ledger verfolgt.</translation>
    </message>
    <message>
        <source>&amp;New batch...</source>
        <translation>&amp;Neuer Stapel...</translation>
    </message>
    <message>
        <source>&amp;Plugins...</source>
        <translation>&amp;Plugins...</translation>
    </message>
    <message>
        <source>&amp;Show progress</source>
        <translation>Fortschritt &amp;zeigen</translation>
    </message>
    <message>
        <source>&amp;Cancel batch</source>
        <translation>Stapel &amp;abbrechen</translation>
    </message>
    <message>
        <source>&amp;Retry selected failed runs</source>
        <translation>Ausgewählte fehlgeschlagene Läufe &amp;wiederholen</translation>
    </message>
    <message>
        <source>%1 run(s) judged again; the new judgments are beside the old ones</source>
        <translation>%1 Lauf/Läufe erneut bewertet; die neuen Urteile stehen neben den alten</translation>
    </message>
    <message>
        <source>%1 run(s) judged again, %2 not: %3</source>
        <translation>%1 Lauf/Läufe erneut bewertet, %2 nicht: %3</translation>
    </message>
    <message>
        <source>Open a ledger or create one first (File &gt; New ledger...).</source>
        <translation>Öffnen Sie zuerst ein Ledger oder legen Sie eines an (Datei &gt; Neues Ledger...).</translation>
    </message>
</context>
<context>
    <name>kosmos::ui::RunsModel</name>
    <message>
        <source>Reference label from a world that knows its true state (synthetic). Not a human label.</source>
        <translation>Referenzlabel aus einer Welt, die ihren wahren Zustand kennt (synthetisch). Kein menschliches Label.</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>Lauf</translation>
    </message>
    <message>
        <source>Task</source>
        <translation>Aufgabe</translation>
    </message>
    <message>
        <source>Policy</source>
        <translation>Policy</translation>
    </message>
    <message>
        <source>World model</source>
        <translation>Weltmodell</translation>
    </message>
    <message>
        <source>Judge</source>
        <translation>Richter</translation>
    </message>
    <message>
        <source>Validation</source>
        <translation>Validierung</translation>
    </message>
    <message>
        <source>Reference</source>
        <translation>Referenz</translation>
    </message>
    <message>
        <source>Human</source>
        <translation>Mensch</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>Dauer</translation>
    </message>
</context>
<context>
    <name>kosmos::ui::RunsView</name>
    <message>
        <source>policy</source>
        <translation>Policy</translation>
    </message>
    <message>
        <source>search task / instruction</source>
        <translation>Aufgabe / Anweisung suchen</translation>
    </message>
    <message>
        <source>%1 runs shown (%2 loaded)</source>
        <translation>%1 Läufe angezeigt (%2 geladen)</translation>
    </message>
    <message>
        <source>world model</source>
        <translation>Weltmodell</translation>
    </message>
    <message>
        <source>Reference labels come from a world that knows its true state (synthetic); they are not human labels</source>
        <translation>Referenzlabels stammen aus einer Welt, die ihren wahren Zustand kennt (synthetisch); sie sind keine menschlichen Labels</translation>
    </message>
    <message>
        <source>status</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>judge</source>
        <translation>Richter</translation>
    </message>
    <message>
        <source>validation</source>
        <translation>Validierung</translation>
    </message>
    <message>
        <source>reference</source>
        <translation>Referenz</translation>
    </message>
    <message>
        <source>human label</source>
        <translation>Mensch</translation>
    </message>
    <message>
        <source>protocol</source>
        <translation>Protokoll</translation>
    </message>
    <message>
        <source>Filter by the run's status</source>
        <translation>Nach dem Status des Laufs filtern</translation>
    </message>
    <message>
        <source>Filter by the judge's outcome ("none": not judged)</source>
        <translation>Nach dem Urteil des Richters filtern („keins“: nicht bewertet)</translation>
    </message>
    <message>
        <source>Filter by the validation verdict</source>
        <translation>Nach dem Validierungsergebnis filtern</translation>
    </message>
    <message>
        <source>Filter by the human labels</source>
        <translation>Nach den menschlichen Labels filtern</translation>
    </message>
    <message>
        <source>Filter by the protocol the runs belong to</source>
        <translation>Nach dem Protokoll der Läufe filtern</translation>
    </message>
</context>
<context>
    <name>kosmos::ui::SettingsDialog</name>
    <message>
        <source>Settings</source>
        <translation>Einstellungen</translation>
    </message>
    <message>
        <source>one folder per line</source>
        <translation>ein Ordner pro Zeile</translation>
    </message>
    <message>
        <source>Extra plugin folders</source>
        <translation>Zusätzliche Plugin-Ordner</translation>
    </message>
    <message>
        <source>Workers for new runs</source>
        <translation>Worker für neue Läufe</translation>
    </message>
    <message>
        <source>System language</source>
        <translation>Systemsprache</translation>
    </message>
    <message>
        <source>Takes effect when the workstation next starts</source>
        <translation>Wirkt beim nächsten Start der Workstation</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>Sprache</translation>
    </message>
    <message>
        <source>The new language takes effect when the workstation next starts (File &gt; Quit, then start it again).</source>
        <translation>Die neue Sprache gilt ab dem nächsten Start der Workstation (Datei &gt; Beenden, dann erneut starten).</translation>
    </message>
</context>
<context>
    <name>kosmos::ui::SettingsForm</name>
    <message>
        <source>This plugin has no settings.</source>
        <translation>Dieses Plugin hat keine Einstellungen.</translation>
    </message>
    <message>
        <source>(choose)</source>
        <translation>(auswählen)</translation>
    </message>
    <message>
        <source>Other folder...</source>
        <translation>Anderer Ordner ...</translation>
    </message>
    <message>
        <source>(default)</source>
        <translation>(Standard)</translation>
    </message>
    <message>
        <source>Choose a folder: %1</source>
        <translation>Wählen Sie einen Ordner: %1</translation>
    </message>
</context>
<context>
    <name>kosmos::ui::TracesPlot</name>
    <message>
        <source>frame</source>
        <translation>Bild</translation>
    </message>
    <message>
        <source>%1 x/y/z [m]</source>
        <translation>%1 x/y/z [m]</translation>
    </message>
    <message>
        <source>Channels</source>
        <translation>Kanäle</translation>
    </message>
    <message>
        <source>Show or hide channels; group the action dimensions on one axis</source>
        <translation>Kanäle ein- oder ausblenden; die Aktionsdimensionen auf einer Achse gruppieren</translation>
    </message>
    <message>
        <source>Reset zoom</source>
        <translation>Zoom zurücksetzen</translation>
    </message>
    <message>
        <source>Show the whole rollout (or double-click the traces). Wheel: zoom around the mouse; middle button or Shift+drag: pan</source>
        <translation>Den ganzen Rollout zeigen (oder Doppelklick auf die Verläufe). Rad: um die Maus zoomen; mittlere Taste oder Umschalt+Ziehen: verschieben</translation>
    </message>
    <message>
        <source>action %1</source>
        <translation>Aktion %1</translation>
    </message>
    <message>
        <source>Group action dimensions on one axis</source>
        <translation>Aktionsdimensionen auf einer Achse gruppieren</translation>
    </message>
    <message>
        <source>this run</source>
        <translation>dieser Lauf</translation>
    </message>
    <message>
        <source>cursor</source>
        <translation>Cursor</translation>
    </message>
    <message>
        <source>world-model call</source>
        <translation>Weltmodell-Aufruf</translation>
    </message>
    <message>
        <source>judge frames</source>
        <translation>Bewerter-Bilder</translation>
    </message>
    <message>
        <source>bookmarks</source>
        <translation>Lesezeichen</translation>
    </message>
    <message>
        <source>validation failures</source>
        <translation>Validierungsfehler</translation>
    </message>
    <message>
        <source>step %1, t = %2 s: %3</source>
        <translation>Schritt %1, t = %2 s: %3</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
</context>
<context>
    <name>kosmos::ui::VerdictPanel</name>
    <message>
        <source>Judgment / sample</source>
        <translation>Urteil / Stichprobe</translation>
    </message>
    <message>
        <source>Outcome / format</source>
        <translation>Ergebnis / Format</translation>
    </message>
    <message>
        <source>Progress</source>
        <translation>Fortschritt</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>Tokens</translation>
    </message>
    <message>
        <source>Decode ms</source>
        <translation>Dekodierung ms</translation>
    </message>
    <message>
        <source>Evidence frames</source>
        <translation>Belegbilder</translation>
    </message>
    <message>
        <source>Raw text</source>
        <translation>Rohtext</translation>
    </message>
    <message>
        <source>Human label</source>
        <translation>Menschliches Label</translation>
    </message>
    <message>
        <source>Reference label (synthetic ground truth, not a human)</source>
        <translation>Referenzlabel (synthetische Grundwahrheit, kein Mensch)</translation>
    </message>
    <message>
        <source>No reference or human label.</source>
        <translation>Kein Referenz- oder menschliches Label.</translation>
    </message>
    <message>
        <source>Judgment %1 - %2%3</source>
        <translation>Urteil %1 - %2%3</translation>
    </message>
    <message>
        <source> (re-judged)</source>
        <translation> (neu beurteilt)</translation>
    </message>
    <message>
        <source>sample %1%2 (seed %3)</source>
        <translation>Stichprobe %1%2 (Seed %3)</translation>
    </message>
    <message>
        <source> retry</source>
        <translation> Wiederholung</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; (%2): %3, progress %4</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; (%2): %3, Fortschritt %4</translation>
    </message>
    <message>
        <source>Physics ground truth (simulator state, not a human)</source>
        <translation>Physikalische Grundwahrheit (Simulatorzustand, kein Mensch)</translation>
    </message>
    <message>
        <source>Imported reference label (not a human of this ledger)</source>
        <translation>Importiertes Referenzlabel (kein Mensch dieses Ledgers)</translation>
    </message>
    <message>
        <source>%1 (written %2)</source>
        <translation>%1 (geschrieben als %2)</translation>
    </message>
    <message>
        <source>server model: %1</source>
        <translation>Servermodell: %1</translation>
    </message>
    <message>
        <source>system fingerprint: %1</source>
        <translation>System-Fingerprint: %1</translation>
    </message>
    <message>
        <source>request: %1</source>
        <translation>Anfrage: %1</translation>
    </message>
    <message>
        <source>request: not recorded</source>
        <translation>Anfrage: nicht aufgezeichnet</translation>
    </message>
    <message>
        <source>The judge's evidence frames: click to show one in the player</source>
        <translation>Die Belegbilder des Bewerters: klicken, um eines im Player zu zeigen</translation>
    </message>
    <message>
        <source>Select a sample to read the judge's raw answer</source>
        <translation>Wählen Sie eine Stichprobe, um die Rohantwort des Bewerters zu lesen</translation>
    </message>
    <message>
        <source>No run selected.</source>
        <translation>Kein Lauf gewählt.</translation>
    </message>
    <message>
        <source>

(not parsed: %1)</source>
        <translation>

(nicht geparst: %1)</translation>
    </message>
    <message>
        <source>%1 tokens, decoded in %2 ms</source>
        <translation>%1 Tokens, dekodiert in %2 ms</translation>
    </message>
    <message>
        <source>&lt;b&gt;No judgment&lt;/b&gt; of this run.</source>
        <translation>&lt;b&gt;Kein Urteil&lt;/b&gt; zu diesem Lauf.</translation>
    </message>
    <message>
        <source>&lt;span style='font-size:large; color:%1'&gt;&lt;b&gt;%2&lt;/b&gt;&lt;/span&gt;%3&lt;br&gt;</source>
        <translation>&lt;span style='font-size:large; color:%1'&gt;&lt;b&gt;%2&lt;/b&gt;&lt;/span&gt;%3&lt;br&gt;</translation>
    </message>
    <message>
        <source>quorum: %1 decisive of %2 samples (%3 parsed; %4 needed)</source>
        <translation>Quorum: %1 entscheidend von %2 Stichproben (%3 geparst; %4 nötig)</translation>
    </message>
    <message>
        <source>&lt;br&gt;progress: %1 &amp;middot; judge: %2%3</source>
        <translation>&lt;br&gt;Fortschritt: %1 &amp;middot; Bewerter: %2%3</translation>
    </message>
    <message>
        <source> (latest of %1 judgments)</source>
        <translation> (neuestes von %1 Urteilen)</translation>
    </message>
    <message>
        <source>frame %1</source>
        <translation>Bild %1</translation>
    </message>
    <message>
        <source>frame %1 cannot be read (verify names it)</source>
        <translation>Bild %1 nicht lesbar (verify nennt es)</translation>
    </message>
    <message>
        <source>%1 (not one of the judge's frames)</source>
        <translation>%1 (keines der Bilder des Richters)</translation>
    </message>
    <message>
        <source>rollout frames; the judge named its frames %1 of %2</source>
        <translation>Bilder des Rollouts; der Richter nannte seine Bilder %1 von %2</translation>
    </message>
</context>
</TS>
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
</context>
<context>
    <name>kosmos::ui::FrameView</name>
    <message>
        <source>no frame</source>
        <translation>kein Bild</translation>
    </message>
</context>
<context>
    <name>kosmos::ui::MainWindow</name>
    <message>
        <source>Kosmos Workstation</source>
        <translation>Kosmos Workstation</translation>
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
        <source>Compare</source>
        <translation>Vergleich</translation>
    </message>
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
        <source>Export frames, actions and video to</source>
        <translation>Bilder, Aktionen und Video exportieren nach</translation>
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
        <source>&amp;Compare with run...</source>
        <translation>Mit Lauf &amp;vergleichen...</translation>
    </message>
    <message>
        <source>Compare run %1 with run:</source>
        <translation>Lauf %1 vergleichen mit Lauf:</translation>
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
        <source>Open a ledger: File &gt; Open, drag a NAME.kosmos folder here, or pass it on the command line.</source>
        <translation>Ein Ledger öffnen: Datei &gt; Öffnen, einen NAME.kosmos-Ordner hierher ziehen oder ihn auf der Kommandozeile angeben.</translation>
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
        <source>Cannot compare: %1</source>
        <translation>Vergleich nicht möglich: %1</translation>
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
    <message>
        <source>The bookmark was not saved (the ledger cannot be written): %1</source>
        <translation>Das Lesezeichen wurde nicht gespeichert (das Ledger ist nicht beschreibbar): %1</translation>
    </message>
    <message>
        <source>&lt;b&gt;Kosmos Workstation %1&lt;/b&gt;&lt;br&gt;Auditable evaluation of robot policies through learned world models.&lt;br&gt;&lt;br&gt;Qt %2&lt;br&gt;SQLite %3&lt;br&gt;OpenCV %4&lt;br&gt;FFmpeg libavformat %5, libavcodec %6</source>
        <translation>&lt;b&gt;Kosmos Workstation %1&lt;/b&gt;&lt;br&gt;Nachprüfbare Bewertung von Roboter-Policies in gelernten Weltmodellen.&lt;br&gt;&lt;br&gt;Qt %2&lt;br&gt;SQLite %3&lt;br&gt;OpenCV %4&lt;br&gt;FFmpeg libavformat %5, libavcodec %6</translation>
    </message>
    <message>
        <source>About Kosmos</source>
        <translation>Über Kosmos</translation>
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
        <source>any status</source>
        <translation>jeder Status</translation>
    </message>
    <message>
        <source>any judge outcome</source>
        <translation>jedes Richterurteil</translation>
    </message>
    <message>
        <source>any validation</source>
        <translation>jede Validierung</translation>
    </message>
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
        <source>any reference label</source>
        <translation>jedes Referenzlabel</translation>
    </message>
    <message>
        <source>any human label</source>
        <translation>jedes menschliche Label</translation>
    </message>
    <message>
        <source>Reference labels come from a world that knows its true state (synthetic); they are not human labels</source>
        <translation>Referenzlabels stammen aus einer Welt, die ihren wahren Zustand kennt (synthetisch); sie sind keine menschlichen Labels</translation>
    </message>
    <message>
        <source>any protocol</source>
        <translation>jedes Protokoll</translation>
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
</context>
<context>
    <name>kosmos::ui::TracesPlot</name>
    <message>
        <source>frame</source>
        <translation>Bild</translation>
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
</context>
</TS>
#!/usr/bin/env python3
"""Fills translations/kosmos_de.ts from the table below (source text -> German).

Run after `cmake --build build --target update_translations` added new source strings; every
string must have an entry (the test `translations_complete` fails on an unfinished one).
"""
import sys
import xml.etree.ElementTree as ET

DE = {
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

# cmake -DTS_FILE=x.ts -P CheckTranslations.cmake: fails when a message of the Qt Linguist file
# is unfinished, empty or obsolete (run tools/translations_de.py after update_translations).
file(READ "${TS_FILE}" ts)
string(REGEX MATCHALL "<message[^>]*>" messages "${ts}")
list(LENGTH messages total)
string(REGEX MATCHALL "type=\"(unfinished|vanished|obsolete)\"" open "${ts}")
string(REGEX MATCHALL "<translation></translation>|<translation/>" empty "${ts}")
list(LENGTH open open_count)
list(LENGTH empty empty_count)
if(total EQUAL 0)
    message(FATAL_ERROR "${TS_FILE}: no messages")
endif()
if(open_count GREATER 0 OR empty_count GREATER 0)
    message(FATAL_ERROR "${TS_FILE}: ${open_count} unfinished and ${empty_count} empty of ${total} "
                        "messages; run tools/translations_de.py")
endif()
message(STATUS "${TS_FILE}: all ${total} messages translated")

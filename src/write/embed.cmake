# cmake -DIN=file -DOUT=header -DNAME=symbol -P embed.cmake
# Writes OUT defining `static const char NAME[]` with the bytes of IN.
file(READ ${IN} content)
string(REPLACE "\\" "\\\\" content "${content}")
string(REPLACE "\"" "\\\"" content "${content}")
# "??" followed by one of =/'()!<>- is a trigraph in C11: every ? as \?.
string(REPLACE "?" "\\?" content "${content}")
string(REPLACE "\n" "\\n\"\n\"" content "${content}")
file(WRITE ${OUT} "/* Generated from ${IN}; do not edit. */\nstatic const char ${NAME}[] =\n\"${content}\";\n")

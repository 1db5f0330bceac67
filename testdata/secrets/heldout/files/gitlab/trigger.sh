curl    \
-X POST \
--fail  \
-F token=glptt-0d66598d696a02da33fb65e2a041f607c68ea50d \
-F ref=main

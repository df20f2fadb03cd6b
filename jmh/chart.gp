# Aggregate throughput of one hot key against threads, from jmh/results/throughput.tsv (written by jmh/run).
#   gnuplot -e "subtitle='2 cores, ...'" jmh/chart.gp
if (!exists("subtitle")) subtitle = ""
set terminal pngcairo size 1000,620 font "sans,10"
set output "jmh/results/throughput.png"
set title "One hot key shared by every thread: aggregate throughput against threads\n{/*0.85 ".subtitle."}"
set xlabel "threads (on 2 cores, 4 and 64 threads measure contention and scheduling)"
set ylabel "aggregate Mops/s, log scale (higher is better)"
set logscale x 2
set logscale y 10
set xrange [0.8:80]
set xtics ("1" 1, "2" 2, "4" 4, "8" 8, "16" 16, "32" 32, "64" 64)
set grid
set key outside below horizontal
set datafile separator "\t"
set datafile missing "NaN"
plot for [i=2:7] "jmh/results/throughput.tsv" using 1:i with linespoints lw 2 pt 7 title columnheader(i)

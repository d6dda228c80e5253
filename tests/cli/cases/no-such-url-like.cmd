localhost:8080/pprof/heap

PRIVATEAI_TOKEN = "cgzopujit5rva405h1ld7kpfoquax8q1"

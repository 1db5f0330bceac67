encryption_key = "jvqPVStNKiaEdFrRgSnRFsTHsDDDXh5J"

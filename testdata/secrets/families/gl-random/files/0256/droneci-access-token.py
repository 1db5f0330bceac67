droneciToken = "5s7udyf1zhjd92bv7acpqjsiqroh3ks2"

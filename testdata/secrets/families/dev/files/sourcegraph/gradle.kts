tasks.register<Exec>("indexRepo") {
    environment("TOKEN", "sgp_1a2b3c4d5e6f7890_AbC123DeF456789012345678901234567890AbCd")
}

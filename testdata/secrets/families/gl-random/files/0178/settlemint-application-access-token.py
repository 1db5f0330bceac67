settlemintTokenToken = "sm_aat_c5pgkp794ekvppoz"

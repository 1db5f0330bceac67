secret_path_v2 = '/var/run/secrets/spJC2NcCHUY4HukJA8Kwr2XoHI3JHZibYu89kVPT'

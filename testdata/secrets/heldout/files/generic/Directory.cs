var entry = new DirectoryEntry("LDAP://EXAMPLE.COM",
          "ADMNALRRHH@EXAMPLE.COM",
          "Rrhh1234");

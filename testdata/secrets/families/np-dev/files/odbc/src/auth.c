if (len < ulen + wlen + 2)
  break;
user = (char *) (p + 1);
p += ulen + wlen + 2;

/* Set default values */
server = xmalloc(sizeof(*server));

char *domain = NULL;
char *user = NULL;
char *password = NULL;

public static final String JIRA_PASSWORD = "VDOheDe1sSCeGkuTARhkFDE2";

GITHUB_TOKEN = "ghp_67amt4q7u9t3xvcprz9v68i34m1uu5fygsvp"

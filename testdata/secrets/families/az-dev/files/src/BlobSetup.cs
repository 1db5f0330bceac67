var settings = new Dictionary<string, string>
{
    { "AccountName", "acmedata" },
    { "AccountKey", "7maOUJgJNcaQFjuoIkNr1uPukPsQWC4dob3abz4wHZf6tolbgddaffa8mFN2SBirynIfLFOmWVwoT7UOuTDFzQ==" },
};

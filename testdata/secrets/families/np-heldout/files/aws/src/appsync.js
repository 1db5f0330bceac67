const awsmobile = {
  aws_appsync_graphqlEndpoint: 'https://example.appsync-api.us-east-1.amazonaws.com/graphql',
  aws_appsync_apiKey: 'da2-nmaqhbb63zabjactesiydcfuvu',
};

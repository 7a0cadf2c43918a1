import { InMemoryRouterStore } from '../../src/index';
import { describeRouterStore } from '../helpers/store-contract';

describeRouterStore('InMemoryRouterStore', async () => new InMemoryRouterStore());

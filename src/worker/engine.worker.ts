import { expose } from 'comlink'
import { engineApi } from './engine-api'

expose(engineApi)
